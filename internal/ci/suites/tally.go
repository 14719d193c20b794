package suites

import (
	"sort"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// tally adds up the runs of a suite.
type tally struct {
	runs     int
	passed   map[string]int
	failed   map[string]bool
	skipped  map[string]bool
	xfailed  map[string]bool
	messages map[string]string
	output   string
}

func newTally() *tally {
	return &tally{passed: map[string]int{}, failed: map[string]bool{}, skipped: map[string]bool{}, xfailed: map[string]bool{}, messages: map[string]string{}}
}

// add counts one run. A test reported twice in a run (a parametrized or repeated name)
// passes the run only when every report of it passed.
func (t *tally) add(cases []languages.SuiteCase) {
	t.runs++
	ok := map[string]bool{}
	for _, c := range cases {
		if _, seen := ok[c.Name]; !seen {
			ok[c.Name] = true
		}
		switch c.Outcome {
		case "pass":
		case "skip":
			t.skipped[c.Name], ok[c.Name] = true, false
		case "xfail":
			t.xfailed[c.Name], ok[c.Name] = true, false
		default:
			t.failed[c.Name], ok[c.Name] = true, false
			if c.Message != "" && t.messages[c.Name] == "" {
				t.messages[c.Name] = c.Message
			}
		}
	}
	for name, passed := range ok {
		if passed {
			t.passed[name]++
		} else if _, known := t.passed[name]; !known {
			t.passed[name] = 0
		}
	}
}

// failing reports whether some test has failed so far.
func (t *tally) failing() bool { return len(t.failed) > 0 }

// result is the tally as a Result: a test missing from some run did not pass it.
func (t *tally) result() Result {
	r := Result{Outcome: contract.Pass, Tests: map[string]contract.Outcome{}, Passed: t.passed, Runs: t.runs, Output: t.output}
	for name, n := range t.passed {
		switch {
		case n == t.runs:
			r.Tests[name] = contract.Pass
		case t.xfailed[name] && !t.failed[name] && !t.skipped[name]:
			r.Tests[name] = XFailed
		case t.failed[name] || !t.skipped[name]:
			r.Tests[name] = contract.Fail
		default:
			r.Tests[name] = Skipped
		}
	}
	if len(t.messages) > 0 {
		r.Messages = t.messages
	}
	return r
}

// sortedNames lists a set's keys in order.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
