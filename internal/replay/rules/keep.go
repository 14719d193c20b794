package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Rule decides which LLM tests enter the vetted suite, given how many of the K panel
// coders pass each one and the test's result on the base.
type Rule string

// The rules issue 31 compares. Oracle is a reference no product can use: it knows the gold.
const (
	Seed           Rule = "seed"            // 0.6 ≤ p/K < 1: the protocol's classification (seed 000)
	Threshold      Rule = "threshold"       // p/K ≥ 0.6: unanimous tests kept too
	Repro          Rule = "repro"           // the test fails on the base: a reproduction test
	SeedRepro      Rule = "seed+repro"      //
	ThresholdRepro Rule = "threshold+repro" //
	All            Rule = "all"             // every LLM test
	Oracle         Rule = "oracle"          // the test passes on the gold patch (reference)
)

// Rules is every rule, candidates first, in the order the report shows them.
var Rules = []Rule{Seed, Threshold, Repro, SeedRepro, ThresholdRepro, All, Oracle}

// Candidates are the rules a product could use: all but the oracle.
func Candidates() []Rule { return Rules[:len(Rules)-1] }

// keep says whether a test passed by p of k panel coders enters the suite. A test whose
// base (or gold) result is unknown is never kept by a rule that needs it: "fails on the
// base" is a claim the data must support.
func (r Rule) keep(p, k int, t Test) bool {
	agreed := 5*p >= 3*k // p/K ≥ 0.6 in integers, BASELINE.md's 5p ≥ 3K
	repro := t.Base == Fail
	switch r {
	case Seed:
		return agreed && p < k
	case Threshold:
		return agreed
	case Repro:
		return repro
	case SeedRepro:
		return agreed && p < k && repro
	case ThresholdRepro:
		return agreed && repro
	case All:
		return true
	case Oracle:
		return t.Gold == Pass
	}
	panic("rules: unknown rule " + string(r))
}

// needsBase says whether the rule reads the base's results, so a corpus without them
// can leave it out.
func (r Rule) needsBase() bool { return strings.Contains(string(r), "repro") }

// ParseRules reads a comma-separated list of rule names, such as "seed,threshold,repro".
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for _, f := range strings.Split(s, ",") {
		r := Rule(strings.TrimSpace(f))
		if !slices.Contains(Rules, r) {
			return nil, fmt.Errorf("keep rule %q in %q: want some of %s", f, s, ruleNames())
		}
		if slices.Contains(out, r) {
			return nil, fmt.Errorf("keep rule %s twice in %q", r, s)
		}
		out = append(out, r)
	}
	return out, nil
}

func ruleNames() string {
	var names []string
	for _, r := range Rules {
		names = append(names, string(r))
	}
	return strings.Join(names, ", ")
}
