package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
)

// The instructions of the text protocol, for models without tool calling. They say the
// same as the native ones, with files written in the reply instead of tool calls.

// coderTextPrompt is a coder's instructions in the text protocol.
func coderTextPrompt(s config.AgentSettings, files string) string {
	var b strings.Builder
	if s.Persona != "" {
		b.WriteString(s.Persona + "\n\n")
	}
	b.WriteString(`You are implementing a change to a software repository, described by the specification in the next message.
You change your working copy of the repository by writing files in your replies:

- a whole file as a fenced code block whose opening line names its path, for example

  ` + "```go path=calc.go" + `
  package calc
  ` + "```" + `

  (or a line "File: calc.go" just before the block); the block is the complete new content;
- or a change to a file as a unified diff in a ` + "```diff" + ` block (--- a/calc.go, +++ b/calc.go, @@ hunks);
- to see a file, a line READ followed by its path, for example "READ calc.go".

After each reply you are told what was written, what was refused and why. When the
implementation is complete, write a line DONE.

Your work will be checked by automated tests that you cannot see. If some of them fail, you will
be told which ones by number, and you can improve your implementation.
`)
	writeFiles(&b, files)
	if s.Direction != "" {
		b.WriteString("\nA working preference: " + s.Direction + "\n")
	}
	return b.String()
}

// testerTextPrompt is a tester's instructions in the text protocol.
func testerTextPrompt(s config.AgentSettings, contract ci.Contract, files string) string {
	var b strings.Builder
	if s.Persona != "" {
		b.WriteString(s.Persona + "\n\n")
	}
	b.WriteString(`You write tests for a change to a software repository, described by the specification in the next message.
To see a file of the repository as it is before the change, write a line READ followed by its
path, for example "READ calc.go"; its content comes back in the next message.
`)
	testRules(&b, contract)
	fmt.Fprintf(&b, "Write each test as the whole file in one fenced code block%s.\n", labelHint(contract.Path))
	if len(contract.Paths) > 0 {
		b.WriteString("To put it at a path of your choosing, name the path after the label: ```" + labelOr(contract.Path) + " path=" +
			exampleTestPath(contract) + "\n")
	}
	writeFiles(&b, files)
	if s.Direction != "" {
		b.WriteString("\nA working preference: " + s.Direction + "\n")
	}
	return b.String()
}

func labelHint(testPath string) string {
	if labels := fenceLabels(testPath); len(labels) > 0 {
		return " labelled " + labels[0] + " (```" + labels[0] + ")"
	}
	return ""
}

func writeFiles(b *strings.Builder, files string) {
	if files != "" {
		b.WriteString("\nThe repository's files:\n" + files + "\n")
	}
}

// listing lists a workspace's files for the text protocol's instructions, as
// list_files shows them (bounded by its limit).
func listing(ws *workspace.Workspace) (string, error) {
	out, err := ws.Call(context.Background(), toolCall("list_files", map[string]any{"path": ".", "recursive": true}))
	if err != nil {
		return "", fmt.Errorf("list the repository's files: %w", err)
	}
	if workspace.IsToolError(out) {
		return "", fmt.Errorf("list the repository's files: %s", out)
	}
	return strings.TrimRight(out, "\n"), nil
}

// exampleTestPath is a path a tester could name: the first place pattern, its wildcards
// filled in.
func exampleTestPath(c ci.Contract) string {
	p := strings.NewReplacer("**/", "pkg/", "**", "pkg", "*", "example").Replace(c.Paths[0])
	return p
}

// labelOr is the test file's fence label, or none.
func labelOr(testPath string) string {
	if labels := fenceLabels(testPath); len(labels) > 0 {
		return labels[0]
	}
	return ""
}
