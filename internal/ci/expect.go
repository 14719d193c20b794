package ci

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// expect is what a run of the test file at rel must report. The judge reads the names
// from the tester's file itself, which the coder never sees: a report that does not
// name them was not written about this test.
func expect(c Contract, rel string, content []byte) expectation {
	e := expectation{path: rel}
	switch path.Ext(rel) {
	case ".go":
		e.names, e.unique = goTests(content), c.Report == ReportTest2JSON
	case ".py":
		e.names = matches(pythonTest, content)
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts":
		e.names = matches(nodeTest, content)
	case ".rs":
		e.names = matches(rustTest, content)
	case ".java":
		// The JUnit Platform names a method test by its signature.
		for _, n := range matches(javaTest, content) {
			e.names = append(e.names, n+"()")
		}
	}
	return e
}

// goTests lists the tests, fuzz targets and examples with output that `go test` runs
// from a file: what the test binary reports at the top level.
func goTests(content []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "test.go", content, parser.ParseComments)
	if err != nil {
		return nil // it will not build either
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Type.TypeParams != nil {
			continue
		}
		name := fn.Name.Name
		if isGoTest(name, "Test") && takes(fn, "T") || isGoTest(name, "Fuzz") && takes(fn, "F") {
			names = append(names, name)
		}
	}
	for _, ex := range doc.Examples(f) {
		if ex.Output != "" || ex.EmptyOutput {
			names = append(names, "Example"+ex.Name)
		}
	}
	return names
}

// isGoTest is go test's rule: the prefix, then nothing or a rune that is not lower case.
func isGoTest(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return ok
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// takes reports whether fn has the one parameter *testing.<typ> (under any import name).
func takes(fn *ast.FuncDecl, typ string) bool {
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch t := star.X.(type) {
	case *ast.SelectorExpr:
		return t.Sel.Name == typ
	case *ast.Ident: // import . "testing"
		return t.Name == typ
	}
	return false
}

var (
	// pythonTest finds the module-level test functions pytest collects by default.
	pythonTest = regexp.MustCompile(`(?m)^(?:async[ \t]+)?def[ \t]+(test\w*)[ \t]*\(`)
	// nodeTest finds top-level tests and suites named by a plain string literal.
	// rustTest finds the file's top-level #[test] functions, which libtest names alone.
	rustTest = regexp.MustCompile(`(?m)^#\[test\][ \t]*\n(?:#\[[^\]\n]*\][ \t]*\n)*(?:async[ \t]+)?fn[ \t]+(\w+)`)
	// javaTest finds JUnit 5 test methods without parameters.
	javaTest = regexp.MustCompile(`(?m)^[ \t]*@Test[ \t]*\n(?:[ \t]*@\w+(?:\([^)\n]*\))?[ \t]*\n)*[ \t]*(?:public[ \t]+|protected[ \t]+)?void[ \t]+(\w+)[ \t]*\([ \t]*\)`)
	nodeTest = regexp.MustCompile("(?m)^(?:test|it|describe|suite)(?:\\.only)?\\([ \\t]*(?:'([^'\\\\#\\n]*)'|\"([^\"\\\\#\\n]*)\")")
)

// matches returns the first non-empty group of each match.
func matches(re *regexp.Regexp, content []byte) []string {
	var out []string
	for _, m := range re.FindAllSubmatch(content, -1) {
		for _, g := range m[1:] {
			if len(g) > 0 {
				out = append(out, string(g))
				break
			}
		}
	}
	return out
}
