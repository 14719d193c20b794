// The repository's own test suite as a regression guard (issue 20, item 3).
//
// RunSuite runs the tests a tree already has, through the same job directories,
// dependency prepare, sandbox, limits and memory cgroup as verdicts: a coder's tree is
// untrusted code whichever tests run on it. Each rerun is a sandbox of its own, so a
// failing run does not stop the next one (the verdict wrapper stops at the first), and
// each test's outcome is read from its runner's report with the package's parsers: Go
// test binaries' -test.v=test2json framing (one binary per package, compiled in a build
// invocation with the build cache, run from the package's directory), pytest's JUnit
// XML, node --test's TAP (one file at a time, so names carry the file), libtest's JUnit
// (one binary per cargo test target), the JUnit Platform launcher's XML (Java, compiled
// with javac as the java preset does). The runner writes its report into .dixit-suite/
// inside the tree, which the judge reads back through os.Root after the run: code
// under test could forge it, exactly as it could forge {report}, so a suite's pass is
// as trustworthy as a verdict's.
//
// Which files are "the existing tests" is the contract's Exclude: the files the judge
// removes from a coder's tree before placing a vetted test. SuiteJob.Tests lays the
// base's test files over the tree, after the tree's own are removed, so a coder cannot
// weaken an existing test to keep it passing. Python also takes pytest's settings from
// the base (-c), so a coder's pytest.ini cannot deselect or rewrite tests. What Exclude
// does not match stays the tree's: test helpers, Rust unit tests inside src/.
//
// Every unit of a suite (a Go package, a Node file, a Rust binary, a pytest session)
// gets ten times the contract's timeout, and a run the sum of its units'; Go packages
// also stop at their own -test.timeout, so one that hangs fails its running test and
// the others still report. Each process keeps the verdicts' per-process CPU limit.
//
// The regression set is what passed on the base in every one of the reruns
// (NewRegressionSet); the flaky rest is listed apart. Regressions compares a tree's
// result with it: a test of the set that fails, is skipped or did not run on the tree
// is a regression, with a line saying why.
//
// Affected narrows a Go suite to the packages some changed files touch and their
// in-module dependents. It reads imports with go/parser on the host rather than asking
// go list in the sandbox: parsing is data-only (nothing of the tree runs), needs no
// prepared dependencies (a coder that edits go.mod would otherwise need a prepare
// first) and takes well under a second on this repository; ignoring build constraints
// only widens the set.

package ci

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// SuiteJob asks for a tree's own tests to be run.
type SuiteJob struct {
	Coder string // name, for logs only
	// Tree is the tree under test: a coder's, a patch's or the base.
	Tree Tree
	// Tests is the tree whose test files (those the contract's Exclude matches) replace
	// Tree's own, so a tree cannot edit the tests it is checked against; nil runs Tree's
	// own tests as they are.
	Tests Tree
	// Only restricts the suite: Go package directories ("pkg/a", "." for the root),
	// Python and Node test files or directories, Rust target files, relative to the
	// tree's root (Java runs every class whatever it says). nil runs
	// everything; empty (not nil) runs nothing, as Affected says of a change that
	// touches no package.
	Only []string
}

// Skipped is a test's outcome in a suite when its runner skipped it in some run and it
// failed in none.
const Skipped Outcome = "skipped"

// SuiteResult is what became of a tree's own tests.
type SuiteResult struct {
	// Outcome is Pass when the suite ran and reported, whatever its tests did; else why
	// it did not: BuildFailed, Timeout, OverLimit, PrepareFailed (the environment: the
	// dependencies or the runner, never the tests), or Fail (no report came back).
	Outcome Outcome `json:"outcome"`
	// Tests holds each test the runner reported, by name: Pass only when it passed in
	// every run, else Fail or Skipped. Go: "import/path.TestX" (top-level tests);
	// Python: "tests/test_x.py::test_y" (pytest's node id); Node and TypeScript:
	// "test/x.test.js::name"; Rust: "tests/it.rs::name", "src/lib.rs::tests::name";
	// Java: "calc.CalcTest#half()".
	Tests map[string]Outcome `json:"tests,omitempty"`
	// Passed counts the runs each test passed in, out of Runs: flakiness shows here.
	Passed map[string]int `json:"passed,omitempty"`
	// Messages holds a failing test's first line of failure, where its runner gives one.
	Messages map[string]string `json:"messages,omitempty"`
	Runs     int               `json:"runs"`
	// Scope is what a restricted suite (SuiteJob.Only) covered: Go import paths, test
	// files. Regressions holds a tree to the tests within it; nil (JSON null) is the
	// whole suite, empty is nothing.
	Scope   []string `json:"scope"`
	Output  string   `json:"output,omitempty"` // tail of the failing run's output, capped at MaxOutput
	Seconds float64  `json:"seconds"`
}

// ErrNoSuite is returned for a contract whose toolchain has no way yet to run a tree's
// own tests.
var ErrNoSuite = errors.New("the judge cannot run the repository's own tests for this toolchain")

// suiteTimeoutFactor bounds one unit of a suite (a Go package, a Node test file, a Rust
// test binary, or a whole pytest session) in units of the contract's per-test timeout:
// a unit holds many tests. A run of the suite gets that much per unit.
const suiteTimeoutFactor = 10

// RunSuite runs each job's suite reruns times, Parallel jobs at a time, and returns
// their results in job order. As with Run, an error is the judge's own failure.
func (l *Local) RunSuite(ctx context.Context, reruns int, jobs []SuiteJob) ([]SuiteResult, error) {
	spec, ok := languages.SuiteFor(l.contract)
	if !ok {
		return nil, fmt.Errorf("toolchain %q: %w", l.contract.Toolchain, ErrNoSuite)
	}
	reruns = max(reruns, 1)
	for i, j := range jobs {
		if j.Tree == nil {
			return nil, fmt.Errorf("suite job %d (%s): no tree", i, j.Coder)
		}
		for _, o := range j.Only {
			if err := checkOnly(o); err != nil {
				return nil, fmt.Errorf("suite job %d (%s): %w", i, j.Coder, err)
			}
		}
	}
	results := make([]SuiteResult, len(jobs))
	err := l.sb.Each(ctx, len(jobs), func(ctx context.Context, lane sandbox.Lane, i int) error {
		r, err := l.runSuiteJob(ctx, lane, spec, reruns, jobs[i])
		if err != nil {
			return fmt.Errorf("suite job %d (%s): %w", i, jobs[i].Coder, err)
		}
		results[i] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// runSuiteJob lays out one tree, prepares its dependencies, builds its suite when the
// toolchain needs a build, and runs it.
func (l *Local) runSuiteJob(ctx context.Context, lane sandbox.Lane, spec languages.Suite, reruns int, job SuiteJob) (SuiteResult, error) {
	start := time.Now()
	if job.Only != nil && len(job.Only) == 0 {
		return SuiteResult{Outcome: Pass, Tests: map[string]Outcome{}, Runs: reruns, Scope: []string{}}, nil
	}
	dir, err := os.MkdirTemp(l.sb.WorkDir(), "suite-")
	if err != nil {
		return SuiteResult{}, fmt.Errorf("job dir: %w", err)
	}
	defer func() {
		if err := removeAll(dir); err != nil {
			l.log.Warn("ci: cannot remove suite directory", "dir", dir, "err", err)
		}
	}()
	cfg, err := l.layOutSuite(dir, job, lane)
	if err != nil {
		return SuiteResult{}, err
	}
	j, failure, err := l.deps.ForJob(ctx, dir, lane)
	if err != nil {
		return SuiteResult{}, err
	}
	if failure != "" {
		return SuiteResult{Outcome: PrepareFailed, Output: failure, Seconds: time.Since(start).Seconds()}, nil
	}
	r, err := l.suiteRuns(ctx, suiteRun{j: j, lane: lane, spec: spec, only: job.Only, config: cfg, reruns: reruns})
	l.sb.TrimCache()
	if err != nil {
		return SuiteResult{}, err
	}
	r.Seconds = time.Since(start).Seconds()
	l.log.Debug("ci: suite", "coder", job.Coder, "outcome", r.Outcome, "tests", len(r.Tests),
		"runs", r.Runs, "seconds", r.Seconds)
	return r, nil
}

// suiteRun is one laid-out, prepared suite job.
type suiteRun struct {
	j      deps.JobDir
	lane   sandbox.Lane
	spec   languages.Suite
	only   []string
	config string // the base's runner settings copied into the tree, or ""
	reruns int
}

// suiteRuns builds the suite when needed and runs it reruns times, each run in a
// sandbox of its own.
func (l *Local) suiteRuns(ctx context.Context, s suiteRun) (SuiteResult, error) {
	c := l.contract
	plan := languages.SuitePlan{Only: s.only, Config: s.config, Toolchain: c.Toolchain, Timeout: c.Timeout * suiteTimeoutFactor}
	src := filepath.Join(s.j.Dir, "src")
	// Known before anything runs, so that a suite that fails to build is held only to
	// the tests it would have run.
	var scope []string
	if s.only != nil && s.spec.Scope != nil {
		var err error
		if scope, err = s.spec.Scope(src, c, s.only); err != nil {
			return SuiteResult{}, err
		}
	}
	if failed, err := l.suiteBuild(ctx, s, plan); err != nil || failed != nil {
		if failed != nil {
			failed.Scope = scope
			return *failed, nil
		}
		return SuiteResult{}, err
	}
	if s.spec.Units != nil {
		var err error
		if plan.Units, err = s.spec.Units(src, c, s.only); err != nil {
			return SuiteResult{}, err
		}
	}
	r, err := l.suiteReruns(ctx, s, plan)
	if err != nil {
		return SuiteResult{}, err
	}
	r.Scope = scope
	return r, nil
}

// suiteBuild builds the suite when the language needs a build; the result is a suite
// that did not build, nil when it built.
func (l *Local) suiteBuild(ctx context.Context, s suiteRun, plan languages.SuitePlan) (*SuiteResult, error) {
	c := l.contract
	if s.spec.Build == nil {
		return nil, nil
	}
	inv := s.j.Invocation(s.lane, true)
	inv.Script, inv.Runs, inv.Timeout = s.spec.Build(plan), 1, c.BuildTimeout
	res, err := l.sb.Execute(ctx, inv)
	if err != nil {
		return nil, fmt.Errorf("suite build: %w", err)
	}
	if res.Passed(1) {
		return nil, nil
	}
	o, note := l.sb.Outcome(res, c.BuildTimeout, true)
	if o != OverLimit && o != Timeout {
		o = BuildFailed
	}
	return &SuiteResult{Outcome: o, Output: sandbox.Clip(res.Output, "suite build: "+note, MaxOutput)}, nil
}

// suiteReruns runs a built suite reruns times and adds up what its tests did; a run that
// timed out, went over a limit or reported nothing ends the suite.
func (l *Local) suiteReruns(ctx context.Context, s suiteRun, plan languages.SuitePlan) (SuiteResult, error) {
	src := filepath.Join(s.j.Dir, "src")
	agg := newSuiteTally()
	// A unit that hangs ends at its own timeout where the runner has one (Go), so the
	// others still report.
	timeout := l.contract.Timeout * suiteTimeoutFactor * time.Duration(max(len(plan.Units), 1))
	for run := 1; run <= s.reruns; run++ {
		if err := l.freshRunDir(src, s.lane); err != nil {
			return SuiteResult{}, err
		}
		inv := s.j.Invocation(s.lane, false)
		inv.Script, inv.Runs, inv.Timeout = s.spec.Run(plan), 1, timeout
		res, err := l.sb.Execute(ctx, inv)
		if err != nil {
			return SuiteResult{}, fmt.Errorf("suite run %d: %w", run, err)
		}
		note := fmt.Sprintf("suite run %d of %d", run, s.reruns)
		if !res.Passed(1) {
			if o, why := l.sb.Outcome(res, timeout, false); o != Fail {
				return SuiteResult{Outcome: o, Runs: run, Output: sandbox.Clip(res.Output, note+": "+why, MaxOutput)}, nil
			}
		}
		reports, problem, err := s.spec.Read(src, plan)
		if err != nil {
			return SuiteResult{}, err
		}
		if problem != "" {
			return SuiteResult{Outcome: Fail, Runs: run, Output: sandbox.Clip(res.Output, note+": "+problem, MaxOutput)}, nil
		}
		agg.add(reports)
		if agg.failing() && agg.output == "" {
			agg.output = sandbox.Clip(res.Output, note, MaxOutput)
		}
	}
	return agg.result(), nil
}

// checkOnly refuses a SuiteJob.Only entry that is not a clean path inside the tree.
func checkOnly(p string) error {
	if p == "." {
		return nil
	}
	if !contract.LocalPath(p) {
		return fmt.Errorf("only %q: want a clean relative path inside the tree", p)
	}
	return nil
}
