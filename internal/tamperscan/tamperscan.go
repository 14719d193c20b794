// Package tamperscan looks through the lines a coder added for the places that reach into
// the test runner or the test's process: reading its own call stack, rewriting memory,
// replacing the runner's modules, hooks that run after the tests, files named like a
// runner or a plugin. It is a pure function of the change. A finding decides nothing
// (honest code uses some of these too): it tells a human where to look first, above all
// when the judge's own checks caught the coder tampering.
package tamperscan

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Line is one added line of a file, numbered as in the new file.
type Line struct {
	Number int
	Text   string
}

// File is one file of a change: its path in the new tree and the lines the change added.
// A new file has every line added; a binary file has none, and only its path is scanned.
type File struct {
	Path  string
	Added []Line
}

// Change is everything a coder added: the files it created or changed.
type Change []File

// Finding is one place in a change that reaches into the runner or the process.
type Finding struct {
	Path string `json:"path"`
	// Line is the line in the new file; 0 when the file's name or place is the finding.
	Line int `json:"line,omitempty"`
	// Found is what was found, as a person names it ("runtime.Callers", "a pytest.py").
	Found string `json:"found"`
	// Why is why it matters to a verdict.
	Why string `json:"why"`
	// Honest is what honest code does with the same thing, when it does: such a finding
	// needs reading before it means anything.
	Honest string `json:"honest,omitempty"`
	// Text is the added line, trimmed and cut short; it is the coder's, so hostile.
	Text string `json:"text,omitempty"`
	// Repeats counts the other lines of the file (or files under the directory) where the
	// same thing was found.
	Repeats int `json:"repeats,omitempty"`
}

// Scan is what a change holds: its findings, strongest first (those honest code rarely
// has), then by path and line; More counts those past the cap.
type Scan struct {
	Findings []Finding `json:"findings"`
	More     int       `json:"more,omitempty"`
}

// Caps that keep a scan readable and summary.json small whatever a coder adds.
const (
	maxFindings = 30
	maxText     = 160
)

// Without is c less the files leftOut names: those the judge never runs, whose lines
// reach no runner.
func (c Change) Without(leftOut func(path string) bool) Change {
	var out Change
	for _, f := range c {
		if !leftOut(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// Scan looks through the added lines of every file of c.
func (c Change) Scan() Scan {
	t := newTable()
	var found []Finding
	for _, f := range c {
		found = append(found, t.scanFile(f)...)
	}
	found = groupPaths(found)
	slices.SortStableFunc(found, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(weight(a), weight(b)), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	s := Scan{Findings: found}
	if len(found) > maxFindings {
		s.Findings, s.More = found[:maxFindings], len(found)-maxFindings
	}
	if s.Findings == nil {
		s.Findings = []Finding{} // scanned and clean, as summary.json says it: not absent
	}
	return s
}

// weight orders findings: those honest code rarely has come first.
func weight(f Finding) int {
	if f.Honest != "" {
		return 1
	}
	return 0
}

// scanFile applies the table to one file: the path patterns once, the line patterns to
// each added line; a pattern found on several lines is one finding that counts the rest.
func (t table) scanFile(f File) []Finding {
	kind := kindOf(f.Path)
	var out []Finding
	first := map[int]int{} // pattern index → its finding in out
	note := func(i int, p pattern, n Finding) {
		if at, seen := first[i]; seen {
			out[at].Repeats++
			return
		}
		first[i] = len(out)
		n.Why, n.Honest = p.why, p.honest
		if n.Found == "" {
			n.Found = p.found
		}
		out = append(out, n)
	}
	inInit := initTracker{}
	logs := t.logs(f.Added)
	for i, p := range t.patterns {
		if p.path != nil && p.applies(kind) {
			if m := p.path.FindStringIndex(f.Path); m != nil {
				note(i, p, Finding{Path: f.Path[:m[1]]})
			}
		}
	}
	for _, l := range f.Added {
		init := inInit.at(l)
		comment := kind.comment(l.Text)
		for i, p := range t.patterns {
			if p.line == nil || !p.applies(kind) || (comment && !p.inComments) || (p.inInitOnly && !init) {
				continue
			}
			what, ok := p.what(l.Text)
			if !ok {
				continue
			}
			note(i, p, Finding{Path: f.Path, Line: l.Number, Found: what, Text: cut(l.Text)})
			if p.logging && logs {
				out[first[i]].Honest = "this file also logs, and loggers read their caller's name this way: look at what the code does with it"
			}
		}
	}
	return out
}

// groupPaths makes the files under one directory a path pattern names (vendor/, _pytest/)
// one finding that counts them.
func groupPaths(found []Finding) []Finding {
	var out []Finding
	at := map[[2]string]int{}
	for _, f := range found {
		if f.Line != 0 || !strings.HasSuffix(f.Path, "/") {
			out = append(out, f)
			continue
		}
		key := [2]string{f.Path, f.Found}
		if i, ok := at[key]; ok {
			out[i].Repeats++
			continue
		}
		at[key] = len(out)
		out = append(out, f)
	}
	return out
}

func cut(line string) string {
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > maxText {
		return string(r[:maxText-1]) + "…"
	}
	return line
}

// fileKind is what a file is, as far as the patterns care: its language and whether it
// is a test.
type fileKind struct {
	lang lang
	test bool
}

type lang int

const (
	other lang = iota
	golang
	python
	goMod
)

func kindOf(p string) fileKind {
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, ".go"):
		return fileKind{lang: golang, test: strings.HasSuffix(base, "_test.go")}
	case strings.HasSuffix(base, ".py"):
		dirs := "/" + path.Dir(p) + "/"
		return fileKind{lang: python, test: strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
			base == "conftest.py" || strings.Contains(dirs, "/tests/") || strings.Contains(dirs, "/test/")}
	case base == "go.mod":
		return fileKind{lang: goMod}
	}
	return fileKind{}
}

// comment says whether a line is only a comment, which most patterns skip.
func (k fileKind) comment(line string) bool {
	t := strings.TrimSpace(line)
	switch k.lang {
	case golang, goMod:
		return strings.HasPrefix(t, "//")
	case python:
		return strings.HasPrefix(t, "#")
	}
	return false
}

// initTracker follows whether consecutive added Go lines are inside a func init: enough
// for the usual case, a new file or a new init, without parsing Go.
type initTracker struct {
	in   bool
	last int
}

func (t *initTracker) at(l Line) bool {
	if l.Number != t.last+1 {
		t.in = false // a gap: lines the change did not add, whose context is unknown
	}
	t.last = l.Number
	text := strings.TrimRight(l.Text, " \t\r")
	switch {
	case strings.HasPrefix(text, "func init()"):
		t.in = !strings.HasSuffix(text, "}") // a one-line init is inside only on its own line
		return true
	case strings.HasPrefix(text, "func "), text == "}":
		wasIn := t.in
		t.in = false
		return wasIn && text == "}"
	}
	return t.in
}

// logs says whether the added lines log, so that a stack read beside them is likely a
// logger naming its caller.
func (t table) logs(lines []Line) bool {
	for _, l := range lines {
		if t.logging.MatchString(l.Text) {
			return true
		}
	}
	return false
}
