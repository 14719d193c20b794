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
	"unicode"
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
	osName := alias("os")
	twins, twinWires := goTwins(content, fset, f, n, osName)
	if len(twinWires) > 0 {
		imports = append(imports, fmt.Sprintf("%s %q", osName, "os"))
		wires = append(wires, twinWires...)
	}
	add(&after, MustFail, "", fail())
	add(&after, MustPass, "", pass())

	cut := goImportsEnd(fset, f)
	var out bytes.Buffer
	out.Write(content[:cut])
	out.WriteString("\n\nimport (\n\t" + strings.Join(imports, "\n\t") + "\n)\n")
	out.Write(before.Bytes())
	out.Write(content[cut:])
	if !bytes.HasSuffix(content, []byte("\n")) {
		out.WriteString("\n")
	}
	out.Write(libs.Bytes())
	out.WriteString(twins)
	out.Write(after.Bytes())
	return Armed{Content: out.Bytes(), Wires: wires}, true
}

// goTwins copies each of the file's tests under a drawn name (goTwin), the copies'
// source and their wires.
func goTwins(content []byte, fset *token.FileSet, f *ast.File, n *namer, osName string) (string, []Wire) {
	var src strings.Builder
	var wires []Wire
	for _, fn := range goTests(f) {
		name := n.next(goName)
		if twin, ok := goTwin(content, fset, fn, name, osName); ok {
			src.WriteString("\n" + twin + "\n")
			wires = append(wires, Wire{Name: name, Want: MustFail, Twin: fn.Name.Name})
		}
	}
	return src.String(), wires
}

// goTests lists the file's tests as go test runs them: TestXxx(t *pkg.T), top level.
func goTests(f *ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Body == nil || fn.Type.TypeParams != nil || fn.Type.Results != nil {
			continue
		}
		rest, ok := strings.CutPrefix(fn.Name.Name, "Test")
		if !ok || rest != "" && unicode.IsLower([]rune(rest)[0]) {
			continue
		}
		if ps := fn.Type.Params.List; len(ps) == 1 && len(ps[0].Names) == 1 && isTestingT(ps[0].Type) {
			out = append(out, fn)
		}
	}
	return out
}

func isTestingT(e ast.Expr) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// goTwin copies the test fn under name, with a deferred failure that no return, panic
// or t.FailNow in its body can skip, and a return at once in every run but a job's
// first. A test whose *testing.T is unnamed gets no twin.
func goTwin(content []byte, fset *token.FileSet, fn *ast.FuncDecl, name, osName string) (string, bool) {
	t := fn.Type.Params.List[0].Names[0].Name
	if t == "_" {
		return "", false
	}
	at := func(p token.Pos) int { return fset.Position(p).Offset }
	brace := at(fn.Body.Lbrace) + 1
	head := fmt.Sprintf("\n\tif r := %s.Getenv(%q); r != \"\" && r != \"1\" {\n\t\treturn\n\t}\n"+
		"\tdefer func() {\n\t\t_ = recover()\n\t\t%s.Errorf(\"got a different result\")\n\t}()\n", osName, RunEnv, t)
	twin := string(content[at(fn.Pos()):at(fn.Name.Pos())]) + name + string(content[at(fn.Name.End()):brace]) +
		head + string(content[brace:at(fn.End())])
	// The copy must parse on its own, or the whole file would stop building.
	if _, err := parser.ParseFile(token.NewFileSet(), "twin.go", "package p\n\n"+twin, parser.SkipObjectResolution); err != nil {
		return "", false
	}
	return twin, true
}

// goImportsEnd is where the file's imports end (its package clause when it has none).
func goImportsEnd(fset *token.FileSet, f *ast.File) int {
	cut := fset.Position(f.Name.End()).Offset
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			cut = fset.Position(g.End()).Offset
		}
	}
	return cut
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
