package archtest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

const (
	maxInternalImports = 10 // issue 19: no package imports more than 10 internal packages
	maxParams          = 6  // issue 19, STYLE: no function takes more than 6 parameters
)

// TestNoPackageImportsMoreThanTenInternalPackages: a package that needs more than ten of
// ours does more than one job; docs/architecture.md wants one package per job.
func TestNoPackageImportsMoreThanTenInternalPackages(t *testing.T) {
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

// TestNoFunctionTakesMoreThanSixParameters: parameters that travel together belong in
// a struct, or on the value whose method it is.
func TestNoFunctionTakesMoreThanSixParameters(t *testing.T) {
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
// covers the packages below it.
type neverRule struct {
	name    string
	from    []string
	never   []string
	instead string
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
		if !underAny(p.rel, r.from) {
			continue
		}
		matched++
		for _, chain := range forbiddenChains(m, p.rel, r.never) {
			problems = append(problems, fmt.Sprintf("%s must not import %s (%s), and does: %s. Instead, %s.",
				p.rel, chain[len(chain)-1], r.name, strings.Join(chain, " → "), r.instead))
		}
	}
	return problems, matched
}

// forbiddenChains walks the imports from start breadth-first, through our own packages
// only, and returns the shortest chain to each forbidden import it reaches. It does not
// walk on through a forbidden package: the first one on the way is the one to remove.
func forbiddenChains(m *module, start string, never []string) [][]string {
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
			if underAny(name, never) {
				hits = append(hits, name)
				continue
			}
			if _, ours := m.pkgs[name]; ours {
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
