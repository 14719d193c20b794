package tripwire

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/pytouch"
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
func armPython(content []byte, rng *rand.Rand, only []string) (Armed, bool) {
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
	var twins bytes.Buffer
	for _, f := range pythonTests(content, only) {
		name := n.next(pythonName)
		if src, ok := pythonTwin(f, name); ok {
			twins.WriteString("\n\n" + src)
			wires = append(wires, Wire{Name: name, Want: MustFail, Twin: f.Name})
		}
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
	out.Write(twins.Bytes())
	out.Write(after.Bytes())
	return Armed{Content: out.Bytes(), Wires: wires, Lead: 2}, true
}

// pythonTests lists the module-level test functions pytest collects, or of those the
// ones named in only; a name defined twice is its last definition, as Python binds it.
func pythonTests(content []byte, only []string) []pytouch.Function {
	fs := pytouch.Functions(content)
	last := map[string]int{}
	for i, f := range fs {
		last[f.Name] = i
	}
	var out []pytouch.Function
	for i, f := range fs {
		if last[f.Name] == i && (only == nil && pytouch.Collected(f.Name) || slices.Contains(only, f.Name)) {
			out = append(out, f)
		}
	}
	return out
}

var pythonDefLine = regexp.MustCompile(`^(?:async[ \t]+)?def[ \t]+(\w+)`)

// pythonTwin copies the test f under name with its body inside try/finally, so that it
// fails whatever the body does, returning at once in every run but a job's first. The
// body moves four spaces in, but for the lines inside a triple-quoted string (moving them
// would change the string). A function the copy cannot be sure to get right (a body on
// its def's line, tabs, a triple quote in its signature) gets no twin.
func pythonTwin(f pytouch.Function, name string) (string, bool) {
	def := slices.IndexFunc(f.Lines, func(l string) bool { return pythonDefLine.MatchString(l) })
	if def < 0 {
		return "", false
	}
	header := -1 // the line that ends the signature with its colon
	for i := def; i < len(f.Lines) && header < 0; i++ {
		code := pythonCode(f.Lines[i])
		if f.Quoted[i] || strings.Contains(code, `"""`) || strings.Contains(code, `'''`) {
			return "", false
		}
		if strings.HasSuffix(strings.TrimRight(code, " \t"), ":") {
			header = i
		}
	}
	if header < 0 {
		return "", false
	}
	body := f.Lines[header+1:]
	first := slices.IndexFunc(body, func(l string) bool { t := strings.TrimSpace(l); return t != "" && !strings.HasPrefix(t, "#") })
	if first < 0 {
		return "", false
	}
	ind := indentOf(body[first])
	if ind == "" || strings.Contains(ind, "\t") {
		return "", false
	}
	var b strings.Builder
	for i, l := range f.Lines[:header+1] {
		if i == def {
			m := pythonDefLine.FindStringSubmatchIndex(l)
			l = l[:m[2]] + name + l[m[3]:]
		}
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "%sif __import__(\"os\").environ.get(%q, \"1\") != \"1\":\n%s    return\n%stry:\n", ind, RunEnv, ind, ind)
	for i, l := range body {
		if !f.Quoted[header+1+i] && strings.TrimSpace(l) != "" {
			if strings.Contains(indentOf(l), "\t") {
				return "", false
			}
			l = "    " + l
		}
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "%sfinally:\n%s    raise AssertionError(\"got a different result\")\n", ind, ind)
	return b.String(), true
}

func indentOf(line string) string { return line[:len(line)-len(strings.TrimLeft(line, " \t"))] }

// pythonCode is a line without its comment (quotes on the line respected).
func pythonCode(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}

func allMatches(re *regexp.Regexp, content []byte) []string {
	var out []string
	for _, m := range re.FindAllSubmatch(content, -1) {
		out = append(out, string(m[1]))
	}
	return out
}
