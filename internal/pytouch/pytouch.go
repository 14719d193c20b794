// Package pytouch reads a Python test module the way pytest selects tests by name:
// which functions and methods it defines (Defs), the node ids that select a test named
// as SWE-bench names it (NodeIDs), and which tests a change to the module adds or alters
// (Touched), so that a proposal editing an existing test file runs only those.
//
// The module is read line by line, with triple-quoted strings skipped, not parsed: a
// "def" inside a docstring or an expected-output string is not taken for one, and
// nested functions and definitions inside if-blocks are not listed (pytest would not
// collect the first; the corpora name neither).
package pytouch

import (
	"regexp"
	"sort"
	"strings"
)

// def is one definition pytest can select by name: a module-level function ("test_x")
// or a method of a module-level class ("TestC::test_x"), with its source lines,
// decorators included.
type def struct {
	id    string
	lines []string
	// quoted marks the lines that continue a triple-quoted string: their text is the
	// string's, so moving them changes the string.
	quoted []bool
}

// text is the definition as code: blank lines, comment lines and trailing spaces do
// not count, so a comment edited inside a test does not make it touched.
func (d def) text() string {
	var b strings.Builder
	for _, l := range d.lines {
		l = strings.TrimRight(l, " \t\r")
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	defRE   = regexp.MustCompile(`^(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	classRE = regexp.MustCompile(`^class\s+([A-Za-z_][A-Za-z0-9_]*)\s*[:(]`)
)

// reader holds the state of one pass over a module.
type reader struct {
	defs     []def
	cur      *def     // the definition being read
	curInd   int      // the indentation of its def line
	class    string   // the module-level class being read, if any
	classInd int      // the indentation of its methods, once seen (-1 before)
	pending  []string // decorator lines waiting for their def
}

// parse lists the module's definitions in the order they appear.
func parse(src []byte) []def {
	r := &reader{classInd: -1}
	var st lexState
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case st.open != "":
			r.more(line, true)
			st = st.closeString(line)
			continue
		case st.depth > 0 || st.joined:
			r.more(line, false)
		default:
			r.line(line)
		}
		st = scan(line, st.depth)
	}
	r.close()
	return r.defs
}

// more adds a line that continues the one before (a string, or brackets left open) to
// what that line belonged to.
func (r *reader) more(line string, quoted bool) {
	switch {
	case r.cur != nil:
		r.cur.add(line, quoted)
	case len(r.pending) > 0:
		r.pending = append(r.pending, line)
	}
}

func (d *def) add(line string, quoted bool) {
	d.lines = append(d.lines, line)
	d.quoted = append(d.quoted, quoted)
}

// line reads one line of code outside any string.
func (r *reader) line(line string) {
	trimmed := strings.TrimLeft(line, " \t")
	ind := len(line) - len(trimmed)
	switch {
	case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		if r.cur != nil {
			r.cur.add(line, false)
		}
		return
	case r.cur != nil && ind > r.curInd: // the body, or the def's own continuation
		r.cur.add(line, false)
		return
	}
	r.close()
	if ind == 0 {
		r.class, r.classInd = "", -1
		if m := classRE.FindStringSubmatch(line); m != nil {
			r.class = m[1]
			r.pending = nil
			return
		}
		r.member(line, trimmed, "", 0)
		return
	}
	if r.class == "" {
		r.pending = nil
		return
	}
	if r.classInd < 0 {
		r.classInd = ind
	}
	if ind == r.classInd {
		r.member(line, trimmed, r.class+"::", ind)
		return
	}
	r.pending = nil
}

// member reads a line at a definition's indentation: a decorator, a def, or neither.
func (r *reader) member(line, trimmed, prefix string, ind int) {
	if strings.HasPrefix(trimmed, "@") {
		r.pending = append(r.pending, line)
		return
	}
	m := defRE.FindStringSubmatch(trimmed)
	if m == nil {
		r.pending = nil
		return
	}
	lines := append(r.pending, line)
	r.cur = &def{id: prefix + m[1], lines: lines, quoted: make([]bool, len(lines))}
	r.curInd, r.pending = ind, nil
}

func (r *reader) close() {
	if r.cur != nil {
		r.defs = append(r.defs, *r.cur)
		r.cur = nil
	}
}

// lexState is what a line leaves open for the next: a string, brackets, or a backslash
// that joins the next line to it.
type lexState struct {
	open   string // the quote of a string still open: a triple quote, or a quote whose line ended in a backslash
	depth  int    // brackets still open
	joined bool   // the line ended in a backslash outside any string
}

// scan reads one line of code from its start, depth brackets open before it, and says
// what it leaves open. Comments and strings (with their escapes) are passed over.
func scan(line string, depth int) lexState {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case '#':
			return lexState{depth: depth}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(depth-1, 0)
		case '"', '\'':
			q := string(c)
			if strings.HasPrefix(line[i:], q+q+q) {
				q += q + q
			}
			end := stringEnd(line[i+len(q):], q)
			if end < 0 {
				return openString(line, q, depth)
			}
			i += len(q) + end - 1
		}
	}
	return lexState{depth: depth, joined: strings.HasSuffix(line, "\\")}
}

// openString is the state after a line that leaves a string open: a triple-quoted one
// goes on; a one-line string goes on only past a backslash at the line's end.
func openString(line, q string, depth int) lexState {
	if len(q) == 3 || strings.HasSuffix(line, "\\") {
		return lexState{open: q, depth: depth}
	}
	return lexState{depth: depth}
}

// closeString reads a line inside the string st left open.
func (st lexState) closeString(line string) lexState {
	end := stringEnd(line, st.open)
	if end < 0 {
		return openString(line, st.open, st.depth)
	}
	return scan(line[end:], st.depth)
}

// stringEnd is the index just past the quote q that closes a string in s, escapes
// respected, or -1.
func stringEnd(s, q string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(s[i:], q) {
			return i + len(q)
		}
	}
	return -1
}

// Defs lists what pytest can select by name in a module: module-level functions
// ("test_x") and the methods of module-level classes ("TestC::test_x"), helpers
// included.
func Defs(src []byte) map[string]bool {
	defs := map[string]bool{}
	for _, d := range parse(src) {
		defs[d.id] = true
	}
	return defs
}

// Function is a module-level function as written: its lines, decorators first, and
// which of them continue a triple-quoted string.
type Function struct {
	Name   string
	Lines  []string
	Quoted []bool
}

// Functions lists the module-level functions in the order they appear.
func Functions(src []byte) []Function {
	var out []Function
	for _, d := range parse(src) {
		if !strings.Contains(d.id, "::") {
			out = append(out, Function{Name: d.id, Lines: d.lines, Quoted: d.quoted})
		}
	}
	return out
}

// Collected reports whether pytest's default rules collect a definition Defs names: a
// module-level function named test…, or a test… method of a class named Test….
func Collected(id string) bool {
	if class, method, ok := strings.Cut(id, "::"); ok {
		return strings.HasPrefix(class, "Test") && strings.HasPrefix(method, "test")
	}
	return strings.HasPrefix(id, "test")
}

// Touched returns the node ids ("file::test_x", "file::TestC::test_x") of the tests
// pytest would collect in patched that base lacks or defines differently, in the order
// they appear in patched. A name defined twice counts as its last definition, as Python
// binds it. Changes outside the tests (imports, helpers, comments) touch none: a test
// that calls a changed helper is not listed.
func Touched(file string, base, patched []byte) []string {
	before := map[string]string{}
	for _, d := range parse(base) {
		before[d.id] = d.text()
	}
	defs := parse(patched)
	last := map[string]int{}
	for i, d := range defs {
		last[d.id] = i
	}
	var ids []string
	for i, d := range defs {
		if last[d.id] != i || !Collected(d.id) {
			continue
		}
		if old, ok := before[d.id]; ok && old == d.text() {
			continue
		}
		ids = append(ids, file+"::"+d.id)
	}
	return ids
}

// NodeIDs finds a test name (as SWE-bench lists it: "test_x", "test_x[p]",
// "TestC::test_x" or "TestC.test_x") among a module's definitions and returns the
// pytest node ids that select it, in file: a bare name defined both at module level and
// as a method selects both.
func NodeIDs(file string, defs map[string]bool, name string) []string {
	base, param := name, ""
	if i := strings.IndexByte(name, '['); i >= 0 {
		base, param = name[:i], name[i:]
	}
	base = strings.Replace(base, ".", "::", 1)
	if strings.Contains(base, "::") {
		if defs[base] {
			return []string{file + "::" + base + param}
		}
		return nil
	}
	var ids []string
	if defs[base] {
		ids = append(ids, file+"::"+base+param)
	}
	for d := range defs {
		if cls, fn, ok := strings.Cut(d, "::"); ok && fn == base && strings.HasPrefix(cls, "Test") {
			ids = append(ids, file+"::"+d+param)
		}
	}
	sort.Strings(ids)
	return ids
}
