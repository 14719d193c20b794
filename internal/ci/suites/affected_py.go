package suites

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Files whose change can change how every Python test runs: the whole suite runs.
var pythonEverything = map[string]bool{
	"conftest.py": true, "setup.py": true, "setup.cfg": true, "pyproject.toml": true,
	"pytest.ini": true, "tox.ini": true, "requirements.txt": true,
}

// pythonAffected is Affected for pytest: the test files of the tree (the contract's
// private files, as the suite would run them) that
//   - the change touches,
//   - sit in a tests/ or test/ folder beside a changed module (sympy/polys/tests for
//     sympy/polys/polytools.py), or
//   - import a changed module by its name (`import a.b.m`, `from a.b.m import x`,
//     `from a.b import m`, relative forms too), directly or through modules that do so.
//
// The last step does not go through a package's __init__.py: a test that imports a
// package depends on every module its __init__ imports, and a package such as sympy
// imports all of itself there, so following it would make every test of a big
// repository depend on every change. That is the price of a suite of minutes rather than
// an hour: a test reaching a changed module only through a package's re-exports (`from
// sympy import Poly`) does not run unless it sits beside the module. Imports are read as
// text; nothing of the tree runs.
func (r *Runner) pythonAffected(ctx context.Context, job Job, changed []string) ([]string, error) {
	for _, f := range changed {
		if pythonEverything[path.Base(f)] || strings.HasPrefix(path.Base(f), "requirements") {
			return nil, nil
		}
	}
	src, done, err := r.laidOut(job)
	if err != nil {
		return nil, err
	}
	defer done()
	g, err := pythonImports(ctx, src)
	if err != nil {
		return nil, err
	}
	return g.affectedTests(changed, r.contract.Private), nil
}

// pyGraph is a tree's Python modules by dotted name, their files, and what each imports
// of the tree's own modules.
type pyGraph struct {
	file    map[string]string          // module -> slash path
	module  map[string]string          // slash path -> module
	imports map[string]map[string]bool // module -> modules of the tree it imports
	// top is imports' module-level part: what importing the module runs at once. An
	// import inside a function runs when it is called (sympy defers most of its
	// cross-package imports so), so a change reaches through it only one step: to the
	// module that calls it, not to that module's importers.
	top map[string]map[string]bool
}

// pythonImports reads every .py file of dir (src/ layouts as their import names), passing
// over hidden folders, virtual environments and caches.
func pythonImports(ctx context.Context, dir string) (pyGraph, error) {
	g := pyGraph{file: map[string]string{}, module: map[string]string{}, imports: map[string]map[string]bool{}, top: map[string]map[string]bool{}}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" || name == "venv" || name == "site-packages") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(name, ".py") {
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			mod := moduleName(rel)
			g.file[mod], g.module[rel] = rel, mod
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return pyGraph{}, fmt.Errorf("affected: read the Python imports: %w", err)
	}
	for _, rel := range files {
		names, err := importedNames(filepath.Join(dir, filepath.FromSlash(rel)), g.module[rel], strings.HasSuffix(rel, "__init__.py"))
		if err != nil {
			return pyGraph{}, fmt.Errorf("affected: read %s: %w", rel, err)
		}
		mod := g.module[rel]
		g.imports[mod], g.top[mod] = map[string]bool{}, map[string]bool{}
		for _, n := range names {
			if _, ok := g.file[n.module]; ok && n.module != mod {
				g.imports[mod][n.module] = true
				if n.top {
					g.top[mod][n.module] = true
				}
			}
		}
	}
	return g, nil
}

// moduleName is a file's import name: a/b/c.py is a.b.c, a/b/__init__.py is a.b, and a
// src/ layout's files import without src.
func moduleName(rel string) string {
	rel = strings.TrimPrefix(rel, "src/")
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), "/__init__")
	return strings.ReplaceAll(rel, "/", ".")
}

var (
	importLine = regexp.MustCompile(`^\s*import\s+(.+)$`)
	fromLine   = regexp.MustCompile(`^\s*from\s+(\.*)([\w.]*)\s+import\s+(.+)$`)
)

// importedNames lists the modules a file's import statements name: for `from a.b import
// c, d` a.b, a.b.c and a.b.d (the caller keeps those that are modules of the tree).
// Relative imports resolve against the file's package. Statements spread over lines in
// parentheses or with backslashes are joined first.
func importedNames(file, mod string, isPackage bool) ([]importedName, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pkg := mod
	if !isPackage {
		if i := strings.LastIndex(mod, "."); i >= 0 {
			pkg = mod[:i]
		} else {
			pkg = ""
		}
	}
	var out []importedName
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var stmt string
	top := false
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if stmt != "" {
			stmt += " " + strings.TrimSpace(line)
		} else if strings.Contains(line, "import") {
			stmt, top = line, !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t")
		} else {
			continue
		}
		if strings.Count(stmt, "(") > strings.Count(stmt, ")") || strings.HasSuffix(strings.TrimSpace(stmt), "\\") {
			stmt = strings.TrimSuffix(strings.TrimSpace(stmt), "\\")
			continue // the statement goes on
		}
		for _, n := range statementNames(stmt, pkg) {
			out = append(out, importedName{module: n, top: top})
		}
		stmt = ""
	}
	return out, sc.Err()
}

// importedName is a module an import statement names, and whether the statement is at
// the module's level (not inside a function, class or conditional block).
type importedName struct {
	module string
	top    bool
}

// statementNames is the modules one import statement names.
func statementNames(stmt, pkg string) []string {
	var out []string
	if m := importLine.FindStringSubmatch(stmt); m != nil {
		for _, part := range strings.Split(m[1], ",") {
			if fields := strings.Fields(part); len(fields) > 0 {
				out = append(out, fields[0])
			}
		}
		return out
	}
	m := fromLine.FindStringSubmatch(stmt)
	if m == nil {
		return nil
	}
	base := m[2]
	if dots := len(m[1]); dots > 0 {
		parent := pkg
		for i := 1; i < dots && parent != ""; i++ {
			if j := strings.LastIndex(parent, "."); j >= 0 {
				parent = parent[:j]
			} else {
				parent = ""
			}
		}
		base = strings.Trim(parent+"."+base, ".")
	}
	out = append(out, base)
	names := strings.NewReplacer("(", " ", ")", " ").Replace(m[3])
	for _, part := range strings.Split(names, ",") {
		if fields := strings.Fields(part); len(fields) > 0 && fields[0] != "*" {
			out = append(out, strings.Trim(base+"."+fields[0], "."))
		}
	}
	return out
}

// affectedTests is the sorted test files (isTest) the changed files reach.
func (g pyGraph) affectedTests(changed []string, isTest func(string) bool) []string {
	hit := map[string]bool{} // modules
	tests := map[string]bool{}
	for _, f := range changed {
		if !strings.HasSuffix(f, ".py") {
			continue
		}
		if isTest(f) {
			if _, ok := g.module[f]; ok {
				tests[f] = true
			}
			continue
		}
		hit[moduleName(f)] = true // a module removed by the change still breaks its importers
		for _, sub := range []string{"tests", "test"} {
			beside := path.Join(path.Dir(f), sub) + "/"
			for rel := range g.module {
				if strings.HasPrefix(rel, beside) && isTest(rel) {
					tests[rel] = true
				}
			}
		}
	}
	for mod := range g.reach(hit) {
		if rel, ok := g.file[mod]; ok && isTest(rel) {
			tests[rel] = true
		}
	}
	out := []string{}
	for rel := range tests {
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}

// reach is the modules the hit modules reach: their module-level importers, again and
// again (what importing them runs), then one step more through any import (a function
// that imports one when called). Never through a package's __init__.py.
func (g pyGraph) reach(hit map[string]bool) map[string]bool {
	for grew := true; grew; {
		grew = false
		for mod, imps := range g.top {
			if hit[mod] {
				continue
			}
			for imp := range imps {
				if hit[imp] && !strings.HasSuffix(g.file[imp], "__init__.py") {
					hit[mod], grew = true, true
					break
				}
			}
		}
	}
	reached := map[string]bool{}
	for mod, imps := range g.imports {
		for imp := range imps {
			if hit[imp] && !strings.HasSuffix(g.file[imp], "__init__.py") {
				reached[mod] = true
			}
		}
	}
	for mod := range hit {
		reached[mod] = true
	}
	return reached
}
