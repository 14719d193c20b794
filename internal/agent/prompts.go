package agent

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/fence"
)

// The agents' instructions. They describe the task and the tools truthfully and say
// nothing of other agents, pass rates, votes, scores or a game (DESIGN.md §1).

// coderPrompt is a coder's instructions; the spec follows in a message of its own
// (specMessage).
func coderPrompt(s config.AgentSettings) string {
	var b strings.Builder
	if s.Persona != "" {
		b.WriteString(s.Persona + "\n\n")
	}
	b.WriteString(`You are implementing a change to a software repository, described by the specification in the next message.
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
	return b.String()
}

// testerPrompt is a tester's instructions; the spec follows in a message of its own.
func testerPrompt(s config.AgentSettings, contract ci.Contract) string {
	var b strings.Builder
	if s.Persona != "" {
		b.WriteString(s.Persona + "\n\n")
	}
	b.WriteString(`You write tests for a change to a software repository, described by the specification in the next message.
The repository as it is before the change can be read with list_files and read_file.
`)
	testRules(&b, contract)
	if contract.Selects(contract.Path) {
		b.WriteString("Submit each test with submit_test: the whole file for a new test file, or a diff (as git diff writes it) that adds or changes " +
			"test functions in one of the repository's existing test files; then only the test functions the diff adds or changes run.\n")
	} else {
		b.WriteString("Submit each test with submit_test, giving the whole file.\n")
	}
	if s.Direction != "" {
		b.WriteString("\nA working preference: " + s.Direction + "\n")
	}
	return b.String()
}

// ProbeRequest asks a tester, once the run is over, for a probe: a file that records
// what the code returns on many inputs instead of asserting anything. Differential
// testing runs it on every implementation (docs/differential.md); the request says
// nothing of them.
func ProbeRequest(contract ci.Contract, tests []ci.Test) string {
	var b strings.Builder
	fmt.Fprintf(&b, `One last request, different from the earlier ones: write a probe instead of a test.

A probe asserts nothing. It calls the code the specification describes on many inputs and, for
each input, prints exactly one line to standard output:

    dixit-probe {"input": <the input, as JSON>, "output": <what the code returned, as JSON>}

Use every input the tests below use, then about 30 more on which a reasonable implementation of
the specification could answer differently: boundaries, unusual but valid inputs, invalid inputs.
Catch failures input by input (a panic, an exception, an error value) and print them as the
output, for example "error: <message>", so that one bad input does not hide the others. The file
is placed at %s with %s replaced by "probe" and run with `+"`%s`"+`; it must not depend on
anything the specification does not promise. Submit it as you submit a test.
`, "`"+contract.Path+"`", "`{id}`", probeCommand(contract))
	if strings.HasSuffix(contract.Path, ".go") {
		b.WriteString(`
In Go, a probe is a test function that prints with fmt.Println and never fails, for example:

    func TestProbe(t *testing.T) {
        for _, in := range [][2]string{{"1.0.0", "1.0.1"}} {
            line, _ := json.Marshal(map[string]any{"input": in, "output": safeCall(in)})
            fmt.Println("dixit-probe " + string(line))
        }
    }
`)
	}
	for _, t := range tests {
		text := strings.TrimRight(string(t.Content), "\n")
		f := fence.For(text)
		fmt.Fprintf(&b, "\nTest %s:\n%s\n%s\n%s\n", t.ID, f, text, f)
	}
	return b.String()
}

func probeCommand(c ci.Contract) string {
	if c.Probe != "" {
		return c.Probe
	}
	return c.Run
}

// testRules says where a test goes, how it is built and run, and what a pass is: the same
// words in the tool and the text protocols.
func testRules(b *strings.Builder, contract ci.Contract) {
	fmt.Fprintf(b, `
Each test you write is one file. It will be placed at %s in the repository once the change
is made (%s stands for a unique name)`, "`"+contract.Path+"`", "`{id}`")
	if contract.Build != "" {
		fmt.Fprintf(b, ", built with `%s`", contract.Build)
	}
	fmt.Fprintf(b, ` and run with `+"`%s`"+`. The test passes when the test
runner reports every test in the file as run and passed; a skipped test fails, and so does a
run that ends early. Test what the specification asks for, through the interface it describes.
`, contract.Run)
	if len(contract.Paths) > 0 {
		fmt.Fprintf(b, `You may instead put a test where it belongs, next to the code it tests: give its path, relative to
the repository's root, matching %s. Commands then see the file as {path}, its directory as {dir}
and its name without the extension as {name}.
`, "`"+strings.Join(contract.Paths, "`, `")+"`")
	}
}
