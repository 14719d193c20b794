package agent

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
)

// The agents' instructions. They describe the task and the tools truthfully and say
// nothing of other agents, pass rates, votes, scores or a game (DESIGN.md §1).

func coderPrompt(spec string, s config.AgentSettings) string {
	var b strings.Builder
	if s.Persona != "" {
		b.WriteString(s.Persona + "\n\n")
	}
	b.WriteString(`You are implementing a change to a software repository, described by the specification below.
Your working copy of the repository is reachable only through your tools: list_files, read_file,
write_file and delete_file work on files; run_command runs a shell command in your working copy
(without network access), for example to build the code or to run checks you write yourself.
When the implementation is complete, call finish.

Your work will be checked by automated tests that you cannot see. If some of them fail, you will
be told which ones by number, and you can improve your implementation.
`)
	if s.Direction != "" {
		b.WriteString("\nA working preference: " + s.Direction + "\n")
	}
	fmt.Fprintf(&b, "\n<specification>\n%s\n</specification>\n", strings.TrimSpace(spec))
	return b.String()
}

func testerPrompt(spec string, s config.AgentSettings, contract ci.Contract) string {
	var b strings.Builder
	if s.Persona != "" {
		b.WriteString(s.Persona + "\n\n")
	}
	b.WriteString(`You write tests for a change to a software repository, described by the specification below.
The repository as it is before the change can be read with list_files and read_file.
`)
	fmt.Fprintf(&b, `
Each test you write is one file. It will be placed at %s in the repository once the change
is made (%s stands for a unique name)`, "`"+contract.Path+"`", "`{id}`")
	if contract.Build != "" {
		fmt.Fprintf(&b, ", built with `%s`", contract.Build)
	}
	fmt.Fprintf(&b, ` and run with `+"`%s`"+`. The test passes when that command
exits with status 0. Test what the specification asks for, through the interface it describes.
Submit each test with submit_test, giving the whole file.
`, contract.Run)
	if s.Direction != "" {
		b.WriteString("\nA working preference: " + s.Direction + "\n")
	}
	fmt.Fprintf(&b, "\n<specification>\n%s\n</specification>\n", strings.TrimSpace(spec))
	return b.String()
}
