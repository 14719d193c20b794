package suites

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// Affected is the Only of a suite job for a change. Python: the test files the change
// reaches (pythonAffected). Go: the package directories of the
// job's tree that the changed files (slash paths relative to its root) touch, and the
// packages of its module that import them, directly or not, tests included. The tree is
// read as the suite would run it, with the job's Tests laid over it: the tests that
// will run decide what depends on what, not the coder's edits of them. nil means the change can
// touch everything (go.mod, go.sum, vendor/, or a contract that is not Go's), and an
// empty list that it touches no package. Imports are read with go/parser, so nothing of
// the tree runs; build constraints are ignored, which can only widen the set.
func (r *Runner) Affected(ctx context.Context, job Job, changed []string) ([]string, error) {
	switch r.contract.Toolchain {
	case "go":
	case "python":
		return r.pythonAffected(ctx, job, changed)
	default:
		return nil, nil
	}
	for _, f := range changed {
		if f == "go.mod" || f == "go.sum" || f == "go.work" || strings.HasPrefix(f, "vendor/") {
			return nil, nil
		}
	}
	src, done, err := r.laidOut(job)
	if err != nil {
		return nil, err
	}
	defer done()
	mod, err := languages.GoModule(src)
	if err != nil {
		r.log.Warn("ci: affected packages unknown, the whole suite runs", "err", err)
		return nil, nil
	}
	g, err := goImports(ctx, src, mod)
	if err != nil {
		return nil, err
	}
	return g.affected(changed), nil
}

// laidOut writes the job's tree as the suite would run it (its Tests laid over) into a
// scratch directory, and returns its root and what removes it.
func (r *Runner) laidOut(job Job) (src string, done func(), err error) {
	dir, err := os.MkdirTemp(r.sb.WorkDir(), "affected-")
	if err != nil {
		return "", nil, fmt.Errorf("affected: %w", err)
	}
	if _, err := r.writeTree(dir, job); err != nil {
		treeperm.RemoveAll(dir)
		return "", nil, err
	}
	return filepath.Join(dir, "src"), func() { treeperm.RemoveAll(dir) }, nil
}

// importGraph is a module's packages by directory, with what each imports from the
// module itself (test files included).
type importGraph struct {
	module  string
	imports map[string]map[string]bool // package dir -> in-module dirs it imports
}

// goImports parses the imports of every package of the module in dir, passing over
// what go ./... does: testdata, vendor, dot and underscore directories, nested modules.
func goImports(ctx context.Context, dir, mod string) (importGraph, error) {
	g := importGraph{module: mod, imports: map[string]map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if p != dir && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, "go.mod")); err == nil && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(rel, ".go") {
			return nil
		}
		pkg := path.Dir(rel)
		if g.imports[pkg] == nil {
			g.imports[pkg] = map[string]bool{}
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return nil // it will not build: its package is listed, and it fails there
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue
			}
			if ip == mod {
				g.imports[pkg]["."] = true
			} else if rest, ok := strings.CutPrefix(ip, mod+"/"); ok {
				g.imports[pkg][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		return importGraph{}, fmt.Errorf("affected: read the module's imports: %w", err)
	}
	return g, nil
}

// affected is the packages the changed files are in (a non-Go file counts for the
// nearest package above it: testdata, embedded files) and their dependents, sorted.
func (g importGraph) affected(changed []string) []string {
	hit := map[string]bool{}
	for _, f := range changed {
		d := path.Dir(path.Clean(f))
		if strings.HasSuffix(f, ".go") {
			hit[d] = true // a package removed by the change still breaks its importers
			continue
		}
		for ; ; d = path.Dir(d) {
			if g.imports[d] != nil {
				hit[d] = true
				break
			}
			if d == "." {
				break
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for pkg, imps := range g.imports {
			if hit[pkg] {
				continue
			}
			for imp := range imps {
				if hit[imp] {
					hit[pkg], grew = true, true
					break
				}
			}
		}
	}
	out := []string{}
	for pkg := range hit {
		if g.imports[pkg] != nil {
			out = append(out, pkg)
		}
	}
	sort.Strings(out)
	return out
}
