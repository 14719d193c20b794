package swebench

import (
	"regexp"
	"sort"
	"strings"
)

// pyDefs lists what pytest can select by name in a Python test module: module-level
// functions ("test_x") and the methods of module-level classes ("TestC::test_x"), read
// line by line with triple-quoted strings skipped, so that a "def" inside a docstring
// or an expected-output string is not taken for one. Nested functions and definitions
// inside if-blocks are not listed: pytest would not collect the first, and the corpus
// names neither.
func pyDefs(src []byte) map[string]bool {
	defs := map[string]bool{}
	class := ""    // the module-level class being read, if any
	classInd := -1 // the indentation of its methods, once seen
	inString := "" // the triple quote that opened a string still open
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimRight(line, "\r")
		if inString != "" {
			if i := strings.Index(line, inString); i >= 0 {
				inString = openTriple(line[i+3:])
			}
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		ind := len(line) - len(trimmed)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if ind == 0 {
			class, classInd = "", -1
			if m := classRE.FindStringSubmatch(line); m != nil {
				class = m[1]
			} else if m := defRE.FindStringSubmatch(line); m != nil {
				defs[m[1]] = true
			}
		} else if class != "" {
			if classInd < 0 {
				classInd = ind
			}
			if ind == classInd {
				if m := defRE.FindStringSubmatch(trimmed); m != nil {
					defs[class+"::"+m[1]] = true
				}
			}
		}
		inString = openTriple(line)
	}
	return defs
}

var (
	defRE   = regexp.MustCompile(`^(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	classRE = regexp.MustCompile(`^class\s+([A-Za-z_][A-Za-z0-9_]*)\s*[:(]`)
)

// openTriple scans one line of code and returns the triple quote of a string it leaves
// open, or "". Comments and one-line strings (with their escapes) are passed over.
func openTriple(line string) string {
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case '#':
			return ""
		case '"', '\'':
			q := string(c)
			if strings.HasPrefix(line[i:], q+q+q) {
				tq := q + q + q
				end := strings.Index(line[i+3:], tq)
				if end < 0 {
					return tq
				}
				i += 3 + end + 2
				continue
			}
			for i++; i < len(line) && line[i] != c; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		}
	}
	return ""
}

// nodeIDs finds a test name (as SWE-bench lists it: "test_x", "test_x[p]",
// "TestC::test_x" or "TestC.test_x") among a module's definitions and returns the
// pytest node ids that select it, in file: a bare name defined both at module level and
// as a method selects both.
func nodeIDs(file string, defs map[string]bool, name string) []string {
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
