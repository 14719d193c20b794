// Package mutation measures how many faults a test suite catches: it makes mutants of an
// implementation with go-gremlins' default operators and runs the suite's tests on each
// in the sandboxed judge (docs/eval.md, "Mutants killed").
//
// gremlins (github.com/go-gremlins/gremlins v0.6.0) keeps all its packages under
// internal/, so it cannot be imported, and its CLI runs go test itself, outside our
// sandbox, on all the tests of a package at once. Here its operator table is applied
// with go/ast instead, and every (mutant, test) pair is one job for ci.Judge, so that
// model-written tests run sandboxed, each on its own, as the protocols run them.
package mutation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

// Operator names follow gremlins' (its internal/mutator), as do the substitutions
// (its internal/engine/mappings.go, Apache-2.0). These five are the ones gremlins
// enables by default.
const (
	ArithmeticBase       = "ARITHMETIC_BASE"
	ConditionalsBoundary = "CONDITIONALS_BOUNDARY"
	ConditionalsNegation = "CONDITIONALS_NEGATION"
	IncrementDecrement   = "INCREMENT_DECREMENT"
	InvertNegatives      = "INVERT_NEGATIVES"
)

// binary are the substitutions on a binary operator; unary on a unary one; incDec on
// x++ and x--.
var (
	binary = map[string]map[token.Token]token.Token{
		ArithmeticBase:       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
		ConditionalsBoundary: {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
		ConditionalsNegation: {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR,
			token.LSS: token.GEQ, token.NEQ: token.EQL},
	}
	unary  = map[string]map[token.Token]token.Token{InvertNegatives: {token.SUB: token.ADD}}
	incDec = map[string]map[token.Token]token.Token{IncrementDecrement: {token.INC: token.DEC, token.DEC: token.INC}}
)

// Mutant is the implementation with one operator changed.
type Mutant struct {
	ID       string `json:"id"` // file:line:column:operator
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Operator string `json:"operator"`
	From     string `json:"from"`
	To       string `json:"to"`
	tree     tree
}

// Generate makes every mutant of the Go files in files that private does not mark as
// test files (private may be nil), in file and position order. A mutant that does not
// type-check (a + on strings turned into -) is left out when its package type-checks
// before the change; when it does not (an import outside the standard library), every
// mutant is kept and the judge's build failures sort them out (Run).
func Generate(files []gitstate.File, private func(string) bool) ([]Mutant, error) {
	var out []Mutant
	checkers := map[string]*checker{}
	for i, f := range files {
		if !strings.HasSuffix(f.Path, ".go") || strings.HasSuffix(f.Path, "_test.go") || (private != nil && private(f.Path)) ||
			strings.HasPrefix(f.Path, "vendor/") || strings.Contains(f.Path, "testdata/") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f.Path, f.Content, parser.SkipObjectResolution)
		if err != nil {
			continue // it does not build as it stands: nothing to mutate
		}
		dir := path.Dir(f.Path)
		if checkers[dir] == nil {
			checkers[dir] = newChecker(files, dir, private)
		}
		for _, site := range sites(file) {
			for _, op := range sortedOps(site.table) {
				to, ok := site.table[op][site.tok]
				if !ok {
					continue
				}
				pos := fset.Position(site.pos)
				content := replaceAt(f.Content, pos.Offset, site.tok.String(), to.String())
				if !checkers[dir].ok(f.Path, content) {
					continue
				}
				m := Mutant{
					ID:   fmt.Sprintf("%s:%d:%d:%s", f.Path, pos.Line, pos.Column, op),
					File: f.Path, Line: pos.Line, Column: pos.Column, Operator: op, From: site.tok.String(), To: to.String(),
				}
				m.tree = newTree(files, i, content, private)
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// site is an operator the tables may change.
type site struct {
	tok   token.Token
	pos   token.Pos
	table map[string]map[token.Token]token.Token
}

func sites(file *ast.File) []site {
	var out []site
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			out = append(out, site{n.Op, n.OpPos, binary})
		case *ast.UnaryExpr:
			out = append(out, site{n.Op, n.OpPos, unary})
		case *ast.IncDecStmt:
			out = append(out, site{n.Tok, n.TokPos, incDec})
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

func sortedOps(table map[string]map[token.Token]token.Token) []string {
	ops := make([]string, 0, len(table))
	for op := range table {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

func replaceAt(src []byte, offset int, from, to string) []byte {
	out := make([]byte, 0, len(src)+len(to)-len(from))
	out = append(out, src[:offset]...)
	out = append(out, to...)
	return append(out, src[offset+len(from):]...)
}

// checker type-checks one package directory with one file replaced.
type checker struct {
	files   map[string][]byte // the package's non-test files
	enabled bool              // the package type-checks as it stands
	imp     types.Importer
}

func newChecker(files []gitstate.File, dir string, private func(string) bool) *checker {
	c := &checker{files: map[string][]byte{}, imp: importer.ForCompiler(token.NewFileSet(), "source", nil)}
	for _, f := range files {
		if path.Dir(f.Path) == dir && strings.HasSuffix(f.Path, ".go") && !strings.HasSuffix(f.Path, "_test.go") &&
			(private == nil || !private(f.Path)) {
			c.files[f.Path] = f.Content
		}
	}
	c.enabled = c.check("", nil)
	return c
}

// ok says whether the package still type-checks with file's content replaced; true when
// the check is not possible.
func (c *checker) ok(file string, content []byte) bool {
	return !c.enabled || c.check(file, content)
}

func (c *checker) check(file string, content []byte) bool {
	fset := token.NewFileSet()
	var parsed []*ast.File
	names := make([]string, 0, len(c.files))
	for name := range c.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src := c.files[name]
		if name == file {
			src = content
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return false
		}
		parsed = append(parsed, f)
	}
	conf := types.Config{Importer: c.imp, Error: func(error) {}}
	_, err := conf.Check("mutant", fset, parsed, nil)
	return err == nil
}

// tree is a mutated implementation as the judge sees it: the files without those the
// contract leaves out, so that mutants of equal code share verdicts in the cache.
type tree struct {
	files []gitstate.File
	hash  string
}

func newTree(files []gitstate.File, changed int, content []byte, private func(string) bool) tree {
	h := sha256.New()
	var kept []gitstate.File
	for i, f := range files {
		if i == changed {
			f.Content = content
		}
		if private != nil && private(f.Path) {
			continue
		}
		kept = append(kept, f)
		fmt.Fprintf(h, "%s %d %t\n", f.Path, len(f.Content), f.Executable)
		h.Write(f.Content)
	}
	// The prefix keeps these apart from git tree hashes in the shared verdict cache.
	return tree{files: kept, hash: "mutant-" + hex.EncodeToString(h.Sum(nil))}
}
