package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// tamperedSection names the coders a job of which came out tampered: the judge's own
// checks in the test's process did not come out as they must. They had no vote on that
// test, and are left out of the consensus and the pick; a human who accepts one anyway
// should read the evidence first, and the places the tamper scan found in its change.
func tamperedSection(s runfile.Summary) string {
	var rows []string
	for _, c := range s.Coders {
		if t := c.Tampered; t != nil {
			// The evidence is the judge's line, but it sits in the test's output: shown as
			// code, on one line, whole (a judge's line fits in escapeLine's 300 characters).
			look := firstPlaces(s.Comparison, c.Name, scanRows)
			if look == "" {
				look = "—" // not scanned: a summary from before the scan
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |\n", plain(c.Name), code(t.Test), escapeLine(t.Evidence), look))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Tampered: %s\n\n", words.Count(len(rows), "coder", "coders"))
	b.WriteString("In a run of these coders' code, the judge's own checks in the same process did not come out as they must: " +
		"something in the process changed what the test runner reports (docs/judge.md, \"tripwires\"). " +
		"They had no vote on that test, and no tampered coder is a candidate for the pick, whatever its suite results. " +
		"The first place to look is where the tamper scan of its change points (\"Tamper scan\" below).\n\n")
	b.WriteString("| coder | first test | the judge's evidence | the first place to look |\n|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, ""))
	b.WriteString("\n")
	return b.String()
}

// coderLabel is a coder's name where coders are listed, marked when it tampered.
func coderLabel(c runfile.Coder) string {
	if c.Tampered != nil {
		return plain(c.Name) + " · **tampered**"
	}
	return plain(c.Name)
}
