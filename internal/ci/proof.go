package ci

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/reports"
	"github.com/dixit-bot/dixit/internal/ci/tripwire"
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
	// wires are the judge's own checks laid into the file (package tripwire): they are
	// not the proposal's tests, and each must come out as it must.
	wires []tripwire.Wire
	// selected are the tests a run selects by node id (a diff's proposal): each must
	// pass, and they stand in for names.
	selected []pickedTest
}

// pickedTest is a test selected by pytest node id, as pytest's JUnit report names it: the
// function's name, and the end of its classname (the module, and the class).
type pickedTest struct {
	id, name, class string
}

func selectedTests(ids []string) []pickedTest {
	out := make([]pickedTest, len(ids))
	for i, id := range ids {
		file, rest, _ := strings.Cut(id, "::")
		class := strings.TrimSuffix(path.Base(file), ".py")
		name := rest
		if c, m, ok := strings.Cut(rest, "::"); ok {
			class, name = class+"."+c, m
		}
		out[i] = pickedTest{id: id, name: name, class: class}
	}
	return out
}

// is reports whether a reported test is this one (a parametrized case counts).
func (n pickedTest) is(t reports.Result) bool {
	return (t.Name == n.name || strings.HasPrefix(t.Name, n.name+"[")) &&
		(t.Class == n.class || strings.HasSuffix(t.Class, "."+n.class))
}

// describe names a reported test for a verdict: by its node id when the run selected it.
func (e expectation) describe(t reports.Result) string {
	for _, n := range e.selected {
		if n.is(t) {
			return n.id
		}
	}
	return t.Name
}

// missing returns the first test the run must pass that the report does not show
// passing (by name, or node id when selected), or "".
func (e expectation) missing(r reports.Run, passed map[string]int, wire map[string]bool) string {
	for _, n := range e.selected {
		if !slices.ContainsFunc(r.Tests, func(t reports.Result) bool { return !wire[t.Name] && t.Outcome == "pass" && n.is(t) }) {
			return n.id
		}
	}
	for _, want := range e.names {
		if !ran(want, passed, r.Suites) {
			return want
		}
	}
	return ""
}

// outcomes says how each selected test came out in a run, for a verdict that fails:
// " (a::t1 passed, a::t2 failed)"; "" when the run selected fewer than two.
func (e expectation) outcomes(r reports.Run) string {
	if len(e.selected) < 2 {
		return ""
	}
	words := map[string]string{"pass": "passed", "fail": "failed", "skip": "was skipped"}
	parts := make([]string, len(e.selected))
	for i, n := range e.selected {
		got := "did not run"
		for _, t := range r.Tests {
			if n.is(t) {
				if got = words[t.Outcome]; t.Outcome != "pass" {
					break
				}
			}
		}
		parts[i] = n.id + " " + got
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// tamperedPrefix starts a problem that makes the verdict Tampered rather than Fail.
const tamperedPrefix = "tampered: "

// problem says why a report does not prove that the expected tests ran and passed,
// none was skipped, and the report is complete; "" when it does.
func (e expectation) problem(r reports.Run, run int) string {
	if r.Damaged != "" {
		return "the test report is damaged: " + r.Damaged
	}
	if len(r.Tests) == 0 && len(r.Started) == 0 && !r.Complete {
		return missingReport
	}
	if why := e.tampered(r, run); why != "" {
		return tamperedPrefix + why
	}
	wire := e.wireTests(r)
	for _, t := range r.Tests {
		if wire[t.Name] {
			continue
		}
		if e.isFile(t.Name) {
			return "the test file reported no test of its own, only that its process ended: " +
				"the code under test may have ended the process early"
		}
		switch t.Outcome {
		case "fail":
			return fmt.Sprintf("the report says %s failed%s", e.describe(t), e.outcomes(r))
		case "skip":
			return fmt.Sprintf("%s was skipped%s", e.describe(t), e.outcomes(r))
		}
	}
	if r.Summary == "fail" && len(e.wires) == 0 { // with wires, one must fail
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
	return e.allRan(r, wire)
}

// allRan says why the tests the file defines, and no test twice, are not all among the
// report's passes (every other outcome was refused before); wires do not count.
func (e expectation) allRan(r reports.Run, wire map[string]bool) string {
	passed, reported := map[string]int{}, map[string]int{}
	for _, t := range r.Tests {
		reported[t.Name]++
		if !wire[t.Name] {
			passed[t.Name]++ // any other outcome returned above
		}
	}
	if e.unique {
		for _, t := range r.Tests {
			if n := reported[t.Name]; n > 1 {
				return fmt.Sprintf("the report names %s %d times: something other than the test runner wrote to it", t.Name, n)
			}
		}
	}
	if want := e.missing(r, passed, wire); want != "" {
		return fmt.Sprintf("the expected test %s did not run%s", want, e.outcomes(r))
	}
	if len(passed) == 0 {
		return "no test ran"
	}
	return ""
}

// tampered says why the wires show that the report is not the runner's own account of
// the tests, or "": a wire came out the other way, went missing while the proposal's
// tests passed, or the closing result says all passed though a wire must fail.
func (e expectation) tampered(r reports.Run, run int) string {
	if len(e.wires) == 0 {
		return ""
	}
	wire := e.wireTests(r)
	// A name reported twice counts as passed if either report says so: a forged pass
	// beside the runner's failure is still a forged pass. So does a wire of which one
	// parametrized case passed.
	outcomes := map[string]string{}
	passed := map[string]int{}
	proposalPassed := true
	for _, t := range r.Tests {
		name := t.Name
		if w, own := e.wireOf(name); own {
			name = w
		}
		if prev, seen := outcomes[name]; !seen || prev != "pass" {
			outcomes[name] = t.Outcome
		}
		if wire[t.Name] {
			continue
		}
		if t.Outcome == "pass" {
			passed[t.Name]++
		} else {
			proposalPassed = false
		}
	}
	if e.missing(r, passed, wire) != "" {
		proposalPassed = false
	}
	if why := tripwire.Check(e.wires, outcomes, proposalPassed, run == 1); why != "" {
		return why
	}
	if r.Summary == "pass" {
		return "the runner's closing result says every test passed, though a check of the judge's own in the same process must fail"
	}
	return ""
}

// wireTests names the reported tests that are the judge's own: its wires, their
// parametrized cases and their Go subtests (a twin copies the proposal's subtests).
func (e expectation) wireTests(r reports.Run) map[string]bool {
	wire := map[string]bool{}
	for _, w := range e.wires {
		wire[w.Name] = true
	}
	for _, t := range r.Tests {
		if w, _ := e.wireOf(t.Name); w != "" {
			wire[t.Name] = true
		}
	}
	return wire
}

// wireOf names the wire a reported test belongs to, or "": the wire itself or one of its
// parametrized cases ("w[1]", own: its outcome is the wire's), or a Go subtest of it
// ("W/sub", whose outcome is not).
func (e expectation) wireOf(name string) (wire string, own bool) {
	for _, w := range e.wires {
		switch {
		case name == w.Name || strings.HasPrefix(name, w.Name+"["):
			return w.Name, true
		case strings.HasPrefix(name, w.Name+"/"):
			return w.Name, false
		}
	}
	return "", false
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
