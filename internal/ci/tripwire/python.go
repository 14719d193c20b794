package tripwire

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
)

var (
	// pythonHead matches leading comment and blank lines: an encoding declaration must
	// stay on the first two lines.
	pythonHead = regexp.MustCompile(`^(?:[ \t]*(?:#[^\n]*)?\n)*`)
	pythonDef  = regexp.MustCompile(`(?m)^(?:async[ \t]+)?def[ \t]+(\w+)`)
	// pythonFuture matches a __future__ import, which must stay the first statement.
	pythonFuture = regexp.MustCompile(`(?m)^from[ \t]+__future__[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)\n?`)
	// pythonDocstring matches a leading module docstring.
	pythonDocstring     = regexp.MustCompile(`^\s*(?:[rRuU]?"""(?s:.*?)"""|[rRuU]?'''(?s:.*?)''')[ \t]*\n?`)
	pythonImportsPytest = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+pytest\b`)
	pythonUsesRaises    = regexp.MustCompile(`(?m)^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(?:\(?[^\n]*\braises\b)`)
)

// armPython writes a pair of wires where the module's statements begin (after a
// docstring and __future__ imports) and a pair at its end: pytest runs a module's tests
// in the order they are defined. A module that uses pytest.raises, or a raises helper
// it imports (sympy's, say), gets a wire that must fail through it. The wires need no
// import of their own, so a module that cannot be imported fails as it would have.
func armPython(content []byte, rng *rand.Rand) (Armed, bool) {
	if bytes.Contains(content, []byte{0}) {
		return Armed{}, false
	}
	n := &namer{rng: rng, taken: allMatches(pythonDef, content)}
	var wires []Wire
	def := func(buf *bytes.Buffer, want, via, body string) {
		name := n.next(pythonName)
		fmt.Fprintf(buf, "\n\ndef %s():\n    %s\n", name, body)
		wires = append(wires, Wire{Name: name, Want: want, Via: via})
	}
	pass := func() string { a := rng.IntN(50) + 2; return fmt.Sprintf("assert %d + %d == %d", a, a, 2*a) }
	fail := func() string { a := rng.IntN(50) + 2; return fmt.Sprintf("assert %d + %d == %d", a, a, 2*a+1) }
	var before, libs, after bytes.Buffer
	def(&before, MustPass, "", pass())
	def(&before, MustFail, "", fail())
	if pythonImportsPytest.Match(content) {
		def(&libs, MustFail, "pytest.raises", "with __import__('pytest').raises(ZeroDivisionError):\n        pass")
	}
	if pythonUsesRaises.Match(content) {
		def(&libs, MustFail, "raises", "raises(ZeroDivisionError, lambda: None)")
	}
	def(&after, MustFail, "", fail())
	def(&after, MustPass, "", pass())

	cut := len(pythonHead.Find(content))
	if m := pythonDocstring.FindIndex(content[cut:]); m != nil {
		cut += m[1]
	}
	for _, m := range pythonFuture.FindAllIndex(content, -1) {
		cut = max(cut, m[1])
	}
	var out bytes.Buffer
	out.Write(content[:cut])
	if cut > 0 && !bytes.HasSuffix(content[:cut], []byte("\n")) {
		out.WriteString("\n")
	}
	out.Write(bytes.TrimLeft(before.Bytes(), "\n"))
	out.WriteString("\n\n")
	out.Write(content[cut:])
	if !bytes.HasSuffix(content, []byte("\n")) {
		out.WriteString("\n")
	}
	out.Write(libs.Bytes())
	out.Write(after.Bytes())
	return Armed{Content: out.Bytes(), Wires: wires, Lead: 2}, true
}

func allMatches(re *regexp.Regexp, content []byte) []string {
	var out []string
	for _, m := range re.FindAllSubmatch(content, -1) {
		out = append(out, string(m[1]))
	}
	return out
}
