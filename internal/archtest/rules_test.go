package archtest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

const (
	maxInternalImports = 8 // issues 19 and 29: no package imports more than 8 internal packages
	maxParams          = 5 // issues 19 and 29, STYLE: no function takes more than 5 parameters
)

// TestNoPackageImportsMoreThanEightInternalPackages: a package that needs more than ten of
// ours does more than one job; docs/architecture.md wants one package per job.
func TestNoPackageImportsMoreThanEightInternalPackages(t *testing.T) {
	m := repoModule(t)
	for _, p := range ratchet(fanOut(m), limit{
		max:   maxInternalImports,
		known: knownFanOut(),
		list:  "knownFanOut",
		says:  "imports %d internal packages",
		fix:   "Split the package by job, or move the wiring that needs them all into one place above it",
	}) {
		t.Error(p)
	}
}

// TestNoFunctionTakesMoreThanFiveParameters: parameters that travel together belong in
// a struct, or on the value whose method it is.
func TestNoFunctionTakesMoreThanFiveParameters(t *testing.T) {
	m := repoModule(t)
	for _, p := range ratchet(longSignatures(m), limit{
		max:   maxParams,
		known: knownLongSignatures(),
		list:  "knownLongSignatures",
		says:  "takes %d parameters",
		fix:   "Group the parameters that travel together into a struct, or make it a method of a value that holds them",
	}) {
		t.Error(p)
	}
}

// fanOut measures every package's imports of the module's internal packages.
func fanOut(m *module) []measure {
	var out []measure
	for _, p := range m.sortedPkgs() {
		var ours []string
		for _, imp := range p.imports {
			if rel, ok := m.rel(imp); ok && (rel == "internal" || strings.HasPrefix(rel, "internal/")) {
				ours = append(ours, rel)
			}
		}
		out = append(out, measure{key: p.rel, count: len(ours), detail: strings.Join(ours, ", ")})
	}
	return out
}

// longSignatures measures every top-level function's parameters.
func longSignatures(m *module) []measure {
	var out []measure
	for _, p := range m.sortedPkgs() {
		for _, f := range p.funcs {
			out = append(out, measure{key: f.key, count: f.params, detail: f.pos})
		}
	}
	return out
}

// neverRule is a "never" of DESIGN.md and docs/architecture.md: no package under one of
// from imports anything under one of never, directly or through other packages of ours.
// Paths of ours are written inside the module ("internal/llm"); others in full. A path
// covers the packages below it, unless the rule is exact. The walk does not go on through
// the packages of through: the one road the rule leaves open ("session reaches a model only
// through cast").
type neverRule struct {
	name    string
	from    []string
	but     []string // packages of from the rule does not apply to (exactly these)
	never   []string
	exact   bool     // never names single packages, not the ones below them
	through []string // packages whose own imports the rule does not follow
	instead string
}

// forbids says whether the rule forbids the package or import path name.
func (r neverRule) forbids(name string) bool {
	if r.exact {
		return slices.Contains(r.never, name)
	}
	return underAny(name, r.never)
}

// neverRules lists the rules of docs/architecture.md "Rules that hold" and DESIGN.md §3.
// Packages of ours that talk to GitHub (ghapp, webhook, app...) need go-github, so a
// path through any of them ends at githubLibs and is caught there.
func neverRules() []neverRule {
	githubLibs := []string{"github.com/google/go-github", "github.com/bradleyfalzon/ghinstallation"}
	modelLibs := []string{"github.com/sashabaranov/go-openai", "internal/llm", "internal/agent"}
	return []neverRule{
		{
			name:    "the protocol knows no GitHub, no model client and no git library: its effects go through its ports",
			from:    []string{"internal/orchestrate"},
			never:   append(append(append([]string{}, githubLibs...), modelLibs...), "github.com/go-git/go-git", "internal/gitstate"),
			instead: "declare a small interface (a port) in internal/orchestrate and implement it in the package that puts a run together",
		},
		{
			name:    "the judge and the git state know no model: a model cannot talk to them",
			from:    []string{"internal/ci", "internal/gitstate"},
			never:   modelLibs,
			instead: "have the caller hand the judge or the git state plain data (the tree, the test, the refs)",
		},
		{
			name:    "the session knows no model: it hands cast a client, and only cast builds agents on it",
			from:    []string{"internal/session"},
			never:   []string{"github.com/sashabaranov/go-openai", "internal/llm"},
			through: []string{"internal/cast"},
			instead: "let internal/cast (or the host that fills session.Options) deal with the model, and hand the session what it needs as data or as cast's types",
		},
		{
			name:    "the judge's own parts import nothing of ci: ci wires them and names their types for the rest of Dixit",
			from:    []string{"internal/ci"},
			but:     []string{"internal/ci", "internal/ci/actions", "internal/ci/actions/actionstest", "internal/ci/classify"},
			never:   []string{"internal/ci"},
			exact:   true,
			instead: "move what the part needs from ci into the part (or into ci/contract), and have ci alias it",
		},
		{
			name:    "agents never touch GitHub: they see the spec as data, their own workspace and what the protocol tells them",
			from:    []string{"internal/agent"},
			never:   githubLibs,
			instead: "let the App fetch what the agent needs and pass it through the protocol as data",
		},
	}
}

// TestNeverImports: the rules hold for every package under each rule's from, through
// any chain of our own packages.
func TestNeverImports(t *testing.T) {
	m := repoModule(t)
	for _, r := range neverRules() {
		problems, matched := checkNever(m, r)
		if matched == 0 {
			t.Errorf("the rule %q applies to %s, and no package is there any more: point it at where that code lives now (neverRules in internal/archtest/rules_test.go, and docs/architecture.md)",
				r.name, strings.Join(r.from, ", "))
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
}

// checkNever returns one message per package of r.from and forbidden import it reaches,
// with the chain of imports, and how many packages the rule applied to.
func checkNever(m *module, r neverRule) (problems []string, matched int) {
	for _, p := range m.sortedPkgs() {
		if !underAny(p.rel, r.from) || slices.Contains(r.but, p.rel) {
			continue
		}
		matched++
		for _, chain := range forbiddenChains(m, p.rel, r) {
			problems = append(problems, fmt.Sprintf("%s must not import %s (%s), and does: %s. Instead, %s.",
				p.rel, chain[len(chain)-1], r.name, strings.Join(chain, " → "), r.instead))
		}
	}
	return problems, matched
}

// forbiddenChains walks the imports from start breadth-first, through our own packages
// only, and returns the shortest chain to each forbidden import it reaches. It does not
// walk on through a forbidden package (the first one on the way is the one to remove), nor
// through the rule's open road.
func forbiddenChains(m *module, start string, r neverRule) [][]string {
	prev := map[string]string{start: ""}
	queue := []string{start}
	var hits []string
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		p := m.pkgs[cur]
		if p == nil {
			continue
		}
		for _, imp := range p.imports {
			name := imp
			if rel, ok := m.rel(imp); ok {
				name = rel
			}
			if _, done := prev[name]; done {
				continue
			}
			prev[name] = cur
			if r.forbids(name) {
				hits = append(hits, name)
				continue
			}
			if _, ours := m.pkgs[name]; ours && !slices.Contains(r.through, name) {
				queue = append(queue, name)
			}
		}
	}
	sort.Strings(hits)
	chains := make([][]string, 0, len(hits))
	for _, h := range hits {
		var chain []string
		for n := h; n != ""; n = prev[n] {
			chain = append([]string{n}, chain...)
		}
		chains = append(chains, chain)
	}
	return chains
}

// underAny says whether path is one of prefixes or below one of them.
func underAny(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
