package ci

import (
	"io/fs"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/ci/suites"
)

// The judge's parts define these names, and the rest of Dixit uses them through ci, as
// it uses the judge itself: one package to import for the judge's whole vocabulary (as
// package os names io/fs's FileMode and PathError). Their documentation is where they
// are defined.

// Contract says how a test plugs into a coder's tree and how it is built and run
// (internal/ci/contract).
type Contract = contract.Contract

// Tree is a coder's source tree as the judge sees it (internal/ci/contract).
type Tree = contract.Tree

// Outcome is what became of a job (internal/ci/contract).
type Outcome = contract.Outcome

// The outcomes of a job (internal/ci/contract).
const (
	Pass          = contract.Pass
	Fail          = contract.Fail
	Timeout       = contract.Timeout
	BuildFailed   = contract.BuildFailed
	OverLimit     = contract.OverLimit
	PrepareFailed = contract.PrepareFailed
	Tampered      = contract.Tampered
)

// The reports a contract can name (internal/ci/contract).
const (
	ReportTest2JSON = contract.ReportTest2JSON
	ReportJUnit     = contract.ReportJUnit
	ReportTAP       = contract.ReportTAP
	ReportNone      = contract.ReportNone
)

// CheckTestPath says why a tester may not put its test at rel, or nil
// (contract.CheckTestPath).
func CheckTestPath(c Contract, rel string) error { return contract.CheckTestPath(c, rel) }

// FormatBytes writes a byte count the way test.memory takes it (contract.FormatBytes).
func FormatBytes(n int64) string { return contract.FormatBytes(n) }

// ParseBytes reads a size as test.memory takes it (contract.ParseBytes).
func ParseBytes(s string) (int64, error) { return contract.ParseBytes(s) }

// DiffTest is a test proposed as a diff of one of the repository's test files: the file
// patched, and the tests the diff adds or changes (contract.DiffTest).
type DiffTest = contract.DiffTest

// ApplyTestDiff reads a tester's diff against the base revision's files and returns the
// test it proposes, or why it is refused, in words for the tester (contract.ApplyTestDiff).
func ApplyTestDiff(c Contract, diff []byte, base fs.FS) (DiffTest, error) {
	return contract.ApplyTestDiff(c, diff, base)
}

// Places says where each test of a suite goes when the suite is kept in the repository
// (the escalation's pull request, the patch bot vet offers): the place its tester named,
// unless an earlier test of the suite took it, else the default place with its id.
func Places(c Contract, tests []Test) []string {
	out := make([]string, len(tests))
	taken := map[string]bool{}
	for i, t := range tests {
		p, err := contract.Place(c, t.ID, t.Path)
		if err != nil || taken[p.Rel] {
			p.Rel = strings.ReplaceAll(c.Path, "{id}", t.ID)
		}
		taken[p.Rel] = true
		out[i] = p.Rel
	}
	return out
}

// Sandbox selects how the local judge isolates test processes (sandbox.Mode).
type Sandbox = sandbox.Mode

// The isolation modes (internal/ci/sandbox).
const (
	SandboxAuto  = sandbox.Auto  // bubblewrap when it works, else reduced isolation with a warning
	SandboxBwrap = sandbox.Bwrap // bubblewrap or fail
	SandboxNone  = sandbox.None  // rlimits, a new session, a scrubbed env and timeouts only
)

// MaxOutput caps Verdict.Output (sandbox.MaxOutput).
const MaxOutput = sandbox.MaxOutput

// DefaultCacheLimit bounds the toolchain cache (sandbox.DefaultCacheLimit).
const DefaultCacheLimit = sandbox.DefaultCacheLimit

// SuiteJob asks for a tree's own tests to be run (suites.Job).
type SuiteJob = suites.Job

// SuiteResult is what became of a tree's own tests (suites.Result).
type SuiteResult = suites.Result

// Skipped is a test's outcome in a suite when its runner skipped it (suites.Skipped).
const Skipped = suites.Skipped

// XFailed is a pytest test's outcome in a suite when it failed as its xfail mark
// expected (suites.XFailed).
const XFailed = suites.XFailed

// ErrNoSuite is RunSuite's error for a toolchain whose own tests the judge cannot run
// yet (suites.ErrNoSuite).
var ErrNoSuite = suites.ErrNoSuite

// RegressionSet is what a tree must keep passing (suites.RegressionSet).
type RegressionSet = suites.RegressionSet

// Regression is one test of a regression set that a tree does not keep passing
// (suites.Regression).
type Regression = suites.Regression

// NewRegressionSet is the regression set of the base's suite result
// (suites.NewRegressionSet).
func NewRegressionSet(base SuiteResult) RegressionSet { return suites.NewRegressionSet(base) }

// Regressions lists the tests of the set that a tree's suite result does not keep
// passing, each with why (suites.Regressions).
func Regressions(set RegressionSet, r SuiteResult) []Regression { return suites.Regressions(set, r) }
