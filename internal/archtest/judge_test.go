package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxJudgeFuncLines bounds a function of the judge (internal/ci and the packages under
// it), signature and closing brace included (issue 29): the judge is where a reader must
// be sure of what runs, and a long function hides a branch.
const maxJudgeFuncLines = 60

// TestNoJudgeFunctionIsLongerThanSixtyLines: split a longer one into steps that each
// say what they do.
func TestNoJudgeFunctionIsLongerThanSixtyLines(t *testing.T) {
	root := filepath.Join("..", "ci")
	long, err := longFunctions(root, maxJudgeFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s: split it into functions of at most %d lines each", f, maxJudgeFuncLines)
	}
}

// longFunctions lists the top-level functions and methods of the non-test files under
// root (testdata left out) longer than max lines, with where they start and their length.
func longFunctions(root string, max int) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > max {
				rel, _ := filepath.Rel(filepath.Join("..", ".."), p)
				out = append(out, fmt.Sprintf("%s:%d %s is %d lines", filepath.ToSlash(rel), start.Line, fd.Name.Name, n))
			}
		}
		return nil
	})
	return out, err
}
