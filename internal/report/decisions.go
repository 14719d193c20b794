package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// nextSection lists the decisions that answer where the run stopped, with the ids to
// use, written as the reader gives them: prefix "/dixit " on GitHub; locally, commands
// that name the run's state directory when it is not the default, so they can be
// copied as they are.
func nextSection(s runfile.Summary, prefix string) string {
	fitting := orchestrate.Fitting(s.Standing)
	if len(fitting) == 0 {
		return ""
	}
	local := prefix == ""
	if local {
		prefix = runfile.DecidePrefix(s.Run, s.StateDir)
	}
	var b strings.Builder
	b.WriteString("## What now\n\nThe run stopped for a human. Any of these takes it on from here:\n\n")
	for _, f := range fitting {
		b.WriteString(offerLine(prefix, f))
	}
	b.WriteString("\n")
	if local {
		fmt.Fprintf(&b, "`bot decide` only records a decision; %s then carries it out.\n\n", inlineCode(runfile.ResumeCommand(s.Run, s.StateDir)))
	}
	return b.String()
}

// decisionsSection is the timeline of the humans' decisions, refused ones included.
func decisionsSection(s runfile.Summary) string {
	if len(s.Decisions) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Decisions\n\n| after round | by | when | decision |\n|---|---|---|---|\n")
	cut := false
	for _, d := range s.Decisions {
		what := d.Verb
		if len(d.Args) > 0 {
			what += " " + strings.Join(d.Args, " ")
		}
		if d.Reason != "" {
			what += ": " + d.Reason
		}
		if d.Refused != "" {
			what += " — refused: " + d.Refused
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", d.Round, escapeCell(d.By), d.At.UTC().Format("2006-01-02 15:04 MST"), escapeCell(what))
		cut = cut || length(d.By) > textChars || length(what) > textChars
	}
	b.WriteString("\n")
	if cut {
		fmt.Fprintf(&b, "Texts over %d characters are cut short here (…); summary.json has them whole.\n\n", textChars)
	}
	return b.String()
}

// textChars is how much of a text written by people a table cell shows.
const textChars = 300

// escapeCell keeps text written by people inside one table cell as plain text, cut to
// textChars characters before escaping so no character or escape is split.
func escapeCell(s string) string {
	if r := []rune(s); len(r) > textChars {
		s = string(r[:textChars]) + "…"
	}
	return plain(s)
}

// offerLine is one decision a reader may give, as a list item.
func offerLine(prefix string, o orchestrate.Offer) string {
	if o.Choices == "" {
		return fmt.Sprintf("- %s\n", inlineCode(prefix+o.Usage))
	}
	return fmt.Sprintf("- %s — %s\n", inlineCode(prefix+o.Usage), plain(o.Choices))
}
