package ci

import "sort"

// suiteTally adds up the runs of a suite.
type suiteTally struct {
	runs     int
	passed   map[string]int
	failed   map[string]bool
	skipped  map[string]bool
	xfailed  map[string]bool
	messages map[string]string
	output   string
}

func newSuiteTally() *suiteTally {
	return &suiteTally{passed: map[string]int{}, failed: map[string]bool{}, skipped: map[string]bool{}, xfailed: map[string]bool{}, messages: map[string]string{}}
}

// suiteCase is one test's outcome in one run.
type suiteCase struct {
	name    string
	outcome string // "pass", "fail", "skip" or "xfail"
	message string // first line of the failure, or ""
}

// add counts one run. A test reported twice in a run (a parametrized or repeated name)
// passes the run only when every report of it passed.
func (t *suiteTally) add(cases []suiteCase) {
	t.runs++
	ok := map[string]bool{}
	for _, c := range cases {
		if _, seen := ok[c.name]; !seen {
			ok[c.name] = true
		}
		switch c.outcome {
		case "pass":
		case "skip":
			t.skipped[c.name], ok[c.name] = true, false
		case "xfail":
			t.xfailed[c.name], ok[c.name] = true, false
		default:
			t.failed[c.name], ok[c.name] = true, false
			if c.message != "" && t.messages[c.name] == "" {
				t.messages[c.name] = c.message
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
func (t *suiteTally) failing() bool { return len(t.failed) > 0 }

// result is the tally as a SuiteResult: a test missing from some run did not pass it.
func (t *suiteTally) result() SuiteResult {
	r := SuiteResult{Outcome: Pass, Tests: map[string]Outcome{}, Passed: t.passed, Runs: t.runs, Output: t.output}
	for name, n := range t.passed {
		switch {
		case n == t.runs:
			r.Tests[name] = Pass
		case t.xfailed[name] && !t.failed[name] && !t.skipped[name]:
			r.Tests[name] = XFailed
		case t.failed[name] || !t.skipped[name]:
			r.Tests[name] = Fail
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
