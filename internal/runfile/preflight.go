package runfile

import (
	"github.com/dixit-bot/dixit/internal/ci"
)

// Preflight is the check of the base revision before any agent was paid: an empty test
// built and run on it in the judge's sandbox, then the base's own tests.
type Preflight struct {
	Passed  bool   `json:"passed"`
	Outcome string `json:"outcome"`          // the empty test's verdict on the base
	Output  string `json:"output,omitempty"` // the judge's output when it did not pass
	Hint    string `json:"hint,omitempty"`   // what to install or configure
	// OwnTests is the verdict of the base's own tests: pass, fail, build_failed, …;
	// "none" when the base has none, "not run" when the contract cannot run them.
	OwnTests  string `json:"own_tests,omitempty"`
	OwnOutput string `json:"own_output,omitempty"`
	// OwnFailing names the base's own tests that failed, as far as the output shows them.
	OwnFailing []string `json:"own_failing,omitempty"`
	Seconds    float64  `json:"seconds"`
	// MidRun is set when the check ran during the run, after every coder failed a test
	// the same way, rather than before any agent worked.
	MidRun bool `json:"mid_run,omitempty"`
}

// Existing is what the repository's own tests did on the base revision: the regression
// set every coder (and a patch under review) must keep passing.
type Existing struct {
	Mode    string           `json:"mode"` // existing_tests: affected or all
	Runs    int              `json:"runs"`
	Set     ci.RegressionSet `json:"set"`
	Outcome ci.Outcome       `json:"outcome,omitempty"` // the base suite's, when it ran
	Output  string           `json:"output,omitempty"`  // why it did not
	Note    string           `json:"note,omitempty"`    // why it guards nothing
	Seconds float64          `json:"seconds"`
	// Patch lists the tests of the set the patch under review breaks (bot vet).
	Patch []ci.Regression `json:"patch,omitempty"`
	// Retired are the tests of the set the spec changes: most coders' first solutions
	// broke them, so they guarded nothing in the run.
	Retired []string `json:"retired,omitempty"`
	// AsReached is set when the base's tests run only as coders' changes reach them (a
	// Python suite under existing_tests: affected, which may take an hour whole): Scope
	// lists the test files run on the base so far, Whole that the whole suite ran.
	AsReached bool     `json:"as_reached,omitempty"`
	Scope     []string `json:"scope,omitempty"`
	Whole     bool     `json:"whole,omitempty"`
}
