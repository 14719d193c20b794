package report

import (
	"fmt"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
	"strings"
)

// The sections on how the implementations differ: in behaviour (the probe's answers) and
// in code (their changes from the base revision).

// differentialRows is how many disagreements a shortened PR body keeps.
const differentialRows = 10

// differentialSection lists the inputs the passing implementations answer differently;
// rows caps the list (0: all), and more is where the rest can be read.
func differentialSection(s runfile.Summary, rows int, more string) string {
	c := s.Comparison
	if c == nil {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	b.WriteString("## Where the implementations disagree\n\n")
	d := c.Differential
	if d == nil {
		p("No differential testing: %s.\n\n", plain(orNone(c.ProbeNote)))
		return b.String()
	}
	p("A probe written by %s asked the %d implementations that pass every vetted test (%s) for their answers on %s. ",
		plain(orNone(c.ProbeBy)), len(d.Coders), plain(strings.Join(d.Coders, ", ")), words.Count(d.Inputs, "input", "inputs"))
	if len(d.Disagreements) == 0 {
		p("They agree on every one.\n\n")
	} else {
		p("They disagree on **%d**. Each row is an input and each implementation's answer; a blank answer means it gave none.\n\n", len(d.Disagreements))
		p("| input |")
		for _, coder := range d.Coders {
			p(" %s |", plain(coder))
		}
		p("\n|---|%s\n", strings.Repeat("---|", len(d.Coders)))
		long := false
		for i, dis := range d.Disagreements {
			if rows > 0 && i == rows {
				p("\n… and %d more inputs on which they disagree, in %s and summary.json.\n", len(d.Disagreements)-rows, more)
				break
			}
			p("| %s |", code(dis.Input))
			long = long || cellCut(dis.Input)
			for _, coder := range d.Coders {
				p(" %s |", code(dis.Outputs[coder]))
				long = long || cellCut(dis.Outputs[coder])
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		if long {
			p("Inputs and answers longer than %d characters are cut short here (…); summary.json has them whole.\n\n", cellChars)
		}
	}
	for _, coder := range d.Coders {
		if note := d.Notes[coder]; note != "" {
			p("- %s: %s\n", plain(coder), escapeLine(note))
		}
	}
	if len(d.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// diffFiles is how many files a coder's row lists before it counts the rest.
const diffFiles = 20

// diffSection shows how far the implementations are from the base and from each other;
// the short form leaves out the per-file lists, and more is where they can be read.
func diffSection(s runfile.Summary, files bool, more string) string {
	c := s.Comparison
	if c == nil || len(c.Touched) == 0 {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	b.WriteString("## How the implementations differ\n\n")
	p("Changes from the base revision:\n\n| coder | files | lines added | lines deleted |%s\n|---|---|---|---|%s\n",
		map[bool]string{true: " files touched |", false: ""}[files], map[bool]string{true: "---|", false: ""}[files])
	for _, t := range c.Touched {
		p("| %s | %d | +%d | −%d |", plain(t.Coder), len(t.Files), t.Added, t.Deleted)
		if files {
			var names []string
			for i, f := range t.Files {
				if i == diffFiles {
					names = append(names, fmt.Sprintf("… %d more files, in summary.json", len(t.Files)-diffFiles))
					break
				}
				names = append(names, fmt.Sprintf("%s +%d −%d", code(f.Path), f.Added, f.Deleted))
			}
			p(" %s |", strings.Join(names, "<br>"))
		}
		b.WriteString("\n")
	}
	if !files {
		p("\nThe files each coder touched are in %s.\n", more)
	}
	if len(c.Pairs) > 0 {
		b.WriteString("\nBetween each pair (lines that differ, in how many files):\n\n|   |")
		for _, t := range c.Touched {
			p(" %s |", plain(t.Coder))
		}
		p("\n|---|%s\n", strings.Repeat("---|", len(c.Touched)))
		dist := map[[2]string]runfile.PairDiff{}
		for _, pd := range c.Pairs {
			dist[[2]string{pd.A, pd.B}], dist[[2]string{pd.B, pd.A}] = pd, pd
		}
		for _, row := range c.Touched {
			p("| **%s** |", plain(row.Coder))
			for _, col := range c.Touched {
				if row.Coder == col.Coder {
					b.WriteString(" — |")
					continue
				}
				pd := dist[[2]string{row.Coder, col.Coder}]
				p(" %d in %d |", pd.Added+pd.Deleted, pd.Files)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}
