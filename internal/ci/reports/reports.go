// Package reports reads the structured reports test runners write: the lines a Go test
// binary frames under -test.v=test2json, go test -json events, JUnit XML and TAP. The
// judge proves a pass on them (package ci's evidence) and reads a suite's results from
// them (package languages); both need the same reading, so it lives here alone.
package reports

// Run is what one run's report says, whatever its format.
type Run struct {
	Tests    []Result
	Suites   []string // names of groups of tests (node's describe, JUnit test suites)
	Summary  string   // the runner's own closing result: "pass", "fail" or "" (not seen)
	Complete bool     // the report reached its end: a closing result, root element or plan
	Damaged  string   // why the report could not be read, or ""
	// Go's framing also tells when each test started, so a test that never finished and
	// lines after the closing result show.
	Started    []string
	Unfinished []string
	Trailing   bool
}

// Result is one test as the report names it.
type Result struct {
	Name    string // as the runner names it; Go subtests as Parent/sub
	Outcome string // "pass", "fail" or "skip"
	Class   string // JUnit's classname (pytest: the module, dotted, and its class); "" in other reports
}

// MaxReport bounds one run's report as the judge holds it; a larger one proves nothing.
const MaxReport = 1 << 20

// FramingByte starts each line a Go test binary writes about its tests under
// -test.v=test2json (^V).
const FramingByte = 0x16
