package suites

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// RegressionSet is what a tree must keep passing: the base's tests that passed in every
// one of Runs runs of its suite.
type RegressionSet struct {
	Tests []string `json:"tests"`
	// Flaky passed in some runs and not in others: they guard nothing, and are left out.
	Flaky []string `json:"flaky,omitempty"`
	Runs  int      `json:"runs"`
}

// NewRegressionSet is the regression set of the base's suite result. A base whose suite
// did not run (its Outcome is not Pass) guards nothing: the caller reports its Output.
func NewRegressionSet(base Result) RegressionSet {
	set := RegressionSet{Runs: base.Runs}
	if base.Outcome != contract.Pass {
		return set
	}
	for _, name := range sortedNames(base.Tests) {
		switch n := base.Passed[name]; {
		case base.Tests[name] == contract.Pass:
			set.Tests = append(set.Tests, name)
		case n > 0:
			set.Flaky = append(set.Flaky, name)
		}
	}
	return set
}

// Regression is one test of a regression set that a tree does not keep passing.
type Regression struct {
	Test   string `json:"test"`
	Reason string `json:"reason"` // one line, for the coder and the report
}

// Regressions lists, in the set's order, the tests of the set that fail, are skipped
// or did not run on a tree, each with why. A suite that did not run at all fails them
// all for its own reason; PrepareFailed among those is the environment's problem (as
// for verdicts), which a caller reports as such rather than as the tree's regressions.
func Regressions(set RegressionSet, r Result) []Regression {
	var out []Regression
	for _, name := range set.Tests {
		if !inScope(name, r.Scope) {
			continue
		}
		if why := regressionReason(name, r); why != "" {
			out = append(out, Regression{Test: name, Reason: why})
		}
	}
	return out
}

// inScope reports whether a restricted suite covered a test: its Go package (or a
// pattern "import/path/..."), or its file, is in the scope; every test is in a nil
// scope.
func inScope(name string, scope []string) bool {
	if scope == nil {
		return true
	}
	for _, unit := range scope {
		if name == unit || strings.HasPrefix(name, unit+"::") {
			return true
		}
		if tree, ok := strings.CutSuffix(unit, "/..."); ok && (strings.HasPrefix(name, tree+".") || strings.HasPrefix(name, tree+"/")) {
			return true
		}
		if rest, ok := strings.CutPrefix(name, unit+"."); ok && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

// regressionReason says why a test did not pass a tree's suite, or "" when it did.
func regressionReason(name string, r Result) string {
	if r.Outcome != contract.Pass {
		why := map[contract.Outcome]string{
			contract.BuildFailed:   "the tree's tests did not build",
			contract.Timeout:       "the tree's test suite timed out",
			contract.OverLimit:     "the tree's test suite went over the judge's limits",
			contract.PrepareFailed: "the tree's dependencies could not be installed",
		}[r.Outcome]
		if why == "" {
			why = "the tree's test suite reported nothing"
		}
		if line := outputLine(r.Output); line != "" {
			why += " (" + line + ")"
		}
		return why
	}
	o, ran := r.Tests[name]
	switch {
	case !ran:
		return "did not run: the tree no longer has it, or its file or package failed before it ran"
	case o == contract.Pass:
		return ""
	case o == Skipped:
		return "was skipped"
	case o == XFailed:
		return "failed as its xfail mark expects"
	}
	why := fmt.Sprintf("failed in %d of %d runs", r.Runs-r.Passed[name], r.Runs)
	if r.Passed[name] == 0 {
		why = "fails"
		if r.Runs > 1 {
			why = fmt.Sprintf("failed in all %d runs", r.Runs)
		}
	}
	if m := r.Messages[name]; m != "" {
		why += ": " + m
	}
	return why
}

// outputLine is the first line of a failed suite's output that says something: not a
// go build package header ("# example.com/m/p") nor the judge's own note.
func outputLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "[dixit]") {
			return languages.FirstLine(line)
		}
	}
	return languages.FirstLine(out)
}
