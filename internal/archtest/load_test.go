package archtest

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// pkg is one package of the module as the go command builds it on this platform: its
// path inside the module ("internal/ci", "cmd/bot"), and what its non-test files import
// and declare. Test files are left out: the rules are about the code that ships.
type pkg struct {
	rel     string
	doc     string   // the doc comment's first sentence
	imports []string // full import paths
	funcs   []function
}

// function is a top-level function or method with the number of parameters it takes.
type function struct {
	key    string // "internal/ci.Run", "internal/ci.Local.Judge"
	params int
	pos    string // file:line, relative to the module root
}

// module is the loaded module: its path from go.mod and its packages by rel.
type module struct {
	path string
	pkgs map[string]*pkg
}

// rel turns a full import path of this module into its path inside it, and says whether
// it is one of ours.
func (m *module) rel(importPath string) (string, bool) {
	if importPath == m.path {
		return ".", true
	}
	r, ok := strings.CutPrefix(importPath, m.path+"/")
	return r, ok
}

// sortedPkgs lists the packages in a stable order, so failures read the same every run.
func (m *module) sortedPkgs() []*pkg {
	out := make([]*pkg, 0, len(m.pkgs))
	for _, p := range m.pkgs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

// repoModule loads the module this test lives in (two directories up).
func repoModule(t *testing.T) *module {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadModule(root)
	if err != nil {
		t.Fatalf("load the module at %s: %v", root, err)
	}
	return m
}

// loadModule reads every package under root the way `go list ./...` finds them: it skips
// testdata, vendor, directories starting with "." or "_", and nested modules, and keeps
// the files that build on this platform.
func loadModule(root string) (*module, error) {
	path, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := &module{path: path, pkgs: map[string]*pkg{}}
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if dir != root && skipDir(dir, d.Name()) {
			return filepath.SkipDir
		}
		p, err := loadPackage(root, dir)
		if err != nil || p == nil {
			return err
		}
		m.pkgs[p.rel] = p
		return nil
	})
	return m, err
}

func skipDir(dir, name string) bool {
	if name == "testdata" || name == "vendor" || name == "node_modules" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod")) // another module
	return err == nil
}

// loadPackage returns nil for a directory without Go files that build here.
func loadPackage(root, dir string) (*pkg, error) {
	bp, err := build.Default.ImportDir(dir, 0)
	var noGo *build.NoGoError
	if errors.As(err, &noGo) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read package in %s: %w", dir, err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	p := &pkg{rel: filepath.ToSlash(rel), doc: bp.Doc, imports: bp.Imports}
	files := append(append([]string{}, bp.GoFiles...), bp.CgoFiles...)
	for _, name := range files {
		fns, err := functions(root, filepath.Join(dir, name), p.rel)
		if err != nil {
			return nil, err
		}
		p.funcs = append(p.funcs, fns...)
	}
	return p, nil
}

// functions lists the top-level functions and methods of one file with their parameter
// counts. Function literals are left out: they have no name to hold a rule against.
func functions(root, file, rel string) ([]function, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	var out []function
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		key := rel + "." + fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			key = rel + "." + receiverType(fd.Recv.List[0].Type) + "." + fd.Name.Name
		}
		pos := fset.Position(fd.Pos())
		where, _ := filepath.Rel(root, pos.Filename)
		out = append(out, function{
			key:    key,
			params: countFields(fd.Type.Params),
			pos:    fmt.Sprintf("%s:%d", filepath.ToSlash(where), pos.Line),
		})
	}
	return out, nil
}

// countFields counts parameters, not groups: (a, b int, c string) is three.
func countFields(fl *ast.FieldList) int {
	if fl == nil {
		return 0
	}
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
}

// receiverType names a method's receiver type without pointer or type parameters:
// (*Local[T]) is "Local".
func receiverType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverType(t.X)
	case *ast.IndexExpr:
		return receiverType(t.X)
	case *ast.IndexListExpr:
		return receiverType(t.X)
	case *ast.ParenExpr:
		return receiverType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return fmt.Sprintf("%T", e)
}

// modulePath reads the module line of a go.mod.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s has no module line", gomod)
}
