package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// The tamper scan in words: what each coder's added lines reach into (runfile.CoderDiff's
// Scan). It is evidence for a reviewer and changes no verdict, no vote and no pick.

// scanRows is how many findings of a coder a shortened PR body keeps.
const scanRows = 3

// scanSection lists, coder by coder, the places in its change that reach into the test
// runner or the process; perCoder caps each coder's rows (0: all), and more is where the
// rest can be read. A summary from before the scan shows nothing.
func scanSection(s runfile.Summary, perCoder int, more string) string {
	c := s.Comparison
	if c == nil {
		return ""
	}
	var rows strings.Builder
	var clean []string
	scanned := false
	for _, d := range c.Touched {
		if d.Scan == nil {
			continue
		}
		scanned = true
		if len(d.Scan.Findings) == 0 {
			clean = append(clean, plain(d.Coder))
			continue
		}
		label := coderLabel(coderNamed(s, d.Coder))
		for i, f := range d.Scan.Findings {
			if perCoder > 0 && i == perCoder {
				fmt.Fprintf(&rows, "| | … | %s, in %s | |\n", words.Count(len(d.Scan.Findings)-perCoder+d.Scan.More, "more finding", "more findings"), more)
				break
			}
			fmt.Fprintf(&rows, "| %s | %s | %s | %s |\n", label, place(f), foundCell(f), whyCell(f))
			label = ""
		}
		if d.Scan.More > 0 && (perCoder == 0 || len(d.Scan.Findings) <= perCoder) {
			fmt.Fprintf(&rows, "| | … | %s the scan did not keep | |\n", words.Count(d.Scan.More, "more finding", "more findings"))
		}
	}
	if !scanned {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Tamper scan\n\n")
	if rows.Len() == 0 {
		b.WriteString("No finding in any coder's change: none of the lines they added reaches into the test runner or the process " +
			"in a way the scan knows (docs/judge.md, \"the tamper scan\").\n\n")
		return b.String()
	}
	b.WriteString("The lines each coder added to the files the judge runs, looked through for places that reach into the test runner " +
		"or the test's process (docs/judge.md, \"the tamper scan\"). A finding decides nothing, and honest code has some of them; " +
		"it is where a reviewer looks first, above all in a coder that tampered. The ones honest code rarely has come first.\n\n")
	b.WriteString("| coder | where | found | why it matters |\n|---|---|---|---|\n")
	b.WriteString(rows.String())
	if len(clean) > 0 {
		fmt.Fprintf(&b, "\nNo finding in the change of %s.\n", words.List(clean...))
	}
	b.WriteString("\n")
	return b.String()
}

// place is where a finding is: path and line, or the path alone when the file's name or
// place is the finding. The path is the coder's: shown as code.
func place(f runfile.Finding) string {
	if f.Line == 0 {
		return code(f.Path)
	}
	return code(fmt.Sprintf("%s:%d", f.Path, f.Line))
}

func foundCell(f runfile.Finding) string {
	cell := plain(f.Found)
	switch {
	case f.Repeats > 0 && f.Line == 0:
		cell += fmt.Sprintf(" (%s)", words.Count(f.Repeats+1, "file", "files"))
	case f.Repeats > 0:
		cell += fmt.Sprintf(" (and %s)", words.Count(f.Repeats, "more line", "more lines"))
	}
	if f.Text != "" {
		cell += "<br>" + code(f.Text)
	}
	return cell
}

func whyCell(f runfile.Finding) string {
	if f.Honest == "" {
		return plain(f.Why)
	}
	return plain(f.Why) + "; but " + plain(f.Honest)
}

// scanFoundNothing goes beside a tampered coder whose change the scan found nothing in.
const scanFoundNothing = "the tamper scan found nothing: the tampering is in a place it does not look"

// firstPlaces is where to look first in a coder's change, from the scan: its n strongest
// findings, scanFoundNothing when there are none, "" when its change was not scanned.
// It goes beside a tampered coder.
func firstPlaces(c *runfile.Comparison, coder string, n int) string {
	if c == nil {
		return ""
	}
	for _, d := range c.Touched {
		if d.Coder != coder || d.Scan == nil {
			continue
		}
		if len(d.Scan.Findings) == 0 {
			return scanFoundNothing
		}
		var parts []string
		for i, f := range d.Scan.Findings {
			if i == n {
				parts = append(parts, fmt.Sprintf("%d more in the tamper scan", len(d.Scan.Findings)-n+d.Scan.More))
				break
			}
			parts = append(parts, place(f)+" "+plain(f.Found))
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// coderNamed is the run's coder of that name (a bare one when the summary lists none).
func coderNamed(s runfile.Summary, name string) runfile.Coder {
	for _, c := range s.Coders {
		if c.Name == name {
			return c
		}
	}
	return runfile.Coder{Name: name}
}
