package tripwire

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"strconv"
	"strings"
)

// goLibrary is an assertion library a Go test may import, with a check that must fail
// written through it: %[1]s is the import's name in the wires, %[2]s the *testing.T.
type goLibrary struct {
	path  string
	check string
}

var goLibraries = []goLibrary{
	{"github.com/stretchr/testify/assert", `%[1]s.Equal(%[2]s, "left", "right")`},
	{"github.com/stretchr/testify/require", `%[1]s.Equal(%[2]s, "left", "right")`},
	{"gotest.tools/v3/assert", `%[1]s.Equal(%[2]s, "left", "right")`},
	{"gotest.tools/assert", `%[1]s.Equal(%[2]s, "left", "right")`},
	{"github.com/matryer/is", `%[1]s.New(%[2]s).Equal("left", "right")`},
	{"github.com/frankban/quicktest", `%[1]s.New(%[2]s).Assert("left", %[1]s.Equals, "right")`},
}

// armGo adds an import block of its own after the file's imports (so the wires do not
// depend on how the file names "testing"), a pair of wires right after it and a pair
// at the end: go test runs a file's tests in the order they are declared. Each library
// wire fails through an import of the same library under a name of the judge's.
func armGo(content []byte, rng *rand.Rand) (Armed, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "test.go", content, parser.SkipObjectResolution)
	if err != nil {
		return Armed{}, false
	}
	n := &namer{rng: rng, taken: goDeclared(f)}
	alias := func(base string) string { return fmt.Sprintf("%s%d", base, rng.IntN(9000)+1000) }
	testing := alias("testing")
	imports := []string{fmt.Sprintf("%s %q", testing, "testing")}
	var before, after, libs bytes.Buffer
	var wires []Wire
	add := func(buf *bytes.Buffer, want, via, body string) {
		name := n.next(goName)
		fmt.Fprintf(buf, "\nfunc %s(t *%s.T) {\n\t%s\n}\n", name, testing, body)
		wires = append(wires, Wire{Name: name, Want: want, Via: via})
	}
	pass := func() string {
		a := rng.IntN(50) + 2
		return fmt.Sprintf("if %d+%d != %d {\n\t\tt.Fatal(\"sum\")\n\t}", a, a, 2*a)
	}
	fail := func() string {
		a := rng.IntN(50) + 2
		return fmt.Sprintf("if %d+%d != %d {\n\t\tt.Errorf(\"sum of %%d and %%d\", %d, %d)\n\t}", a, a, 2*a+1, a, a)
	}
	add(&before, MustPass, "", pass())
	add(&before, MustFail, "", fail())
	for _, lib := range goLibraries {
		if !goImports(f, lib.path) {
			continue
		}
		name := alias("check")
		imports = append(imports, fmt.Sprintf("%s %q", name, lib.path))
		add(&libs, MustFail, lib.path, fmt.Sprintf(lib.check, name, "t"))
	}
	add(&after, MustFail, "", fail())
	add(&after, MustPass, "", pass())

	cut := fset.Position(f.Name.End()).Offset
	if len(f.Imports) > 0 {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				cut = fset.Position(g.End()).Offset
			}
		}
	}
	var out bytes.Buffer
	out.Write(content[:cut])
	out.WriteString("\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n")
	out.Write(before.Bytes())
	out.Write(content[cut:])
	if !bytes.HasSuffix(content, []byte("\n")) {
		out.WriteString("\n")
	}
	out.Write(libs.Bytes())
	out.Write(after.Bytes())
	return Armed{Content: out.Bytes(), Wires: wires}, true
}

// goImports reports whether the file imports path.
func goImports(f *ast.File, path string) bool {
	for _, im := range f.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil && p == path {
			return true
		}
	}
	return false
}

// goDeclared lists the file's top-level function names, so that a wire never takes one.
func goDeclared(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}
