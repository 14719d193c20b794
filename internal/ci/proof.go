package ci

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// expectation is what a run's report must show to prove a pass.
type expectation struct {
	// names are the top-level tests the test file defines, as its runner names them;
	// nil when the judge cannot list them, and then any passing test will do.
	names []string
	// unique: each test runs once per run (a Go binary with -test.count=1), so a name
	// reported twice was written by something else.
	unique bool
	// path is the test file's place in the tree: node reports the file itself as a test
	// when it declared none, which is what an early process.exit(0) looks like.
	path string
}

// problem says why a report does not prove that the expected tests ran and passed,
// none was skipped, and the report is complete; "" when it does.
func (e expectation) problem(r reports.Run) string {
	if r.Damaged != "" {
		return "the test report is damaged: " + r.Damaged
	}
	if len(r.Tests) == 0 && len(r.Started) == 0 && !r.Complete {
		return missingReport
	}
	for _, t := range r.Tests {
		if e.isFile(t.Name) {
			return "the test file reported no test of its own, only that its process ended: " +
				"the code under test may have ended the process early"
		}
		switch t.Outcome {
		case "fail":
			return fmt.Sprintf("the report says %s failed", t.Name)
		case "skip":
			return fmt.Sprintf("%s was skipped", t.Name)
		}
	}
	if r.Summary == "fail" {
		return "the report says the run failed"
	}
	if len(r.Unfinished) > 0 {
		return fmt.Sprintf("%s started but never finished: the code under test may have ended the process early", r.Unfinished[0])
	}
	if !r.Complete {
		return "the test report is incomplete: the code under test may have ended the process early"
	}
	if r.Trailing {
		return "the test report goes on after its closing result: something other than the test runner wrote to it"
	}
	passed := map[string]int{}
	for _, t := range r.Tests {
		passed[t.Name]++
	}
	if e.unique {
		for _, t := range r.Tests {
			if n := passed[t.Name]; n > 1 {
				return fmt.Sprintf("the report names %s %d times: something other than the test runner wrote to it", t.Name, n)
			}
		}
	}
	for _, want := range e.names {
		if !ran(want, passed, r.Suites) {
			return fmt.Sprintf("the expected test %s did not run", want)
		}
	}
	if len(passed) == 0 {
		return "no test ran"
	}
	return ""
}

// ran reports whether a test the file defines is among the passing ones; pytest names
// each case of a parametrized test want[...]; the JUnit Platform names a Java method
// want() and surefire plain want; vitest names a describe block's tests want > ….
func ran(want string, passed map[string]int, suites []string) bool {
	if passed[want] > 0 {
		return true
	}
	if method, ok := strings.CutSuffix(want, "()"); ok && passed[method] > 0 {
		return true
	}
	for name := range passed {
		// vitest's JUnit names a test inside a describe block "describe > test".
		if strings.HasPrefix(name, want+"[") || strings.HasPrefix(name, want+" > ") {
			return true
		}
	}
	for _, s := range suites {
		if s == want {
			return true
		}
	}
	return false
}

// isFile reports whether a reported test is the test file itself.
func (e expectation) isFile(name string) bool {
	return e.path != "" && (name == e.path || strings.HasSuffix(name, "/"+e.path))
}
