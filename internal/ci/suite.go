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
	"sync"
	"time"
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

// XFailed is a pytest test's outcome in a suite when it failed as its xfail mark
// expected in some run and neither failed nor was skipped in any.
const XFailed Outcome = "xfailed"

// SuiteResult is what became of a tree's own tests.
type SuiteResult struct {
	// Outcome is Pass when the suite ran and reported, whatever its tests did; else why
	// it did not: BuildFailed, Timeout, OverLimit, PrepareFailed (the environment: the
	// dependencies or the runner, never the tests), or Fail (no report came back).
	Outcome Outcome `json:"outcome"`
	// Tests holds each test the runner reported, by name: Pass only when it passed in
	// every run, else Fail, Skipped or XFailed. Go: "import/path.TestX" (top-level tests);
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
	spec, ok := suiteFor(l.contract)
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]SuiteResult, len(jobs))
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
launch:
	for i := range jobs {
		var sl slot
		select {
		case sl = <-l.slots:
		case <-ctx.Done():
			break launch
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { l.slots <- sl }()
			r, err := l.runSuiteJob(ctx, sl, spec, reruns, jobs[i])
			if err != nil {
				errOnce.Do(func() {
					firstErr = fmt.Errorf("suite job %d (%s): %w", i, jobs[i].Coder, err)
					cancel()
				})
				return
			}
			results[i] = r
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// runSuiteJob lays out one tree, prepares its dependencies, builds its suite when the
// toolchain needs a build, and runs it.
func (l *Local) runSuiteJob(ctx context.Context, sl slot, spec suiteSpec, reruns int, job SuiteJob) (SuiteResult, error) {
	start := time.Now()
	if job.Only != nil && len(job.Only) == 0 {
		return SuiteResult{Outcome: Pass, Tests: map[string]Outcome{}, Runs: reruns, Scope: []string{}}, nil
	}
	dir, err := os.MkdirTemp(l.work, "suite-")
	if err != nil {
		return SuiteResult{}, fmt.Errorf("job dir: %w", err)
	}
	defer func() {
		if err := removeAll(dir); err != nil {
			l.log.Warn("ci: cannot remove suite directory", "dir", dir, "err", err)
		}
	}()
	cfg, err := l.layOutSuite(dir, job, sl)
	if err != nil {
		return SuiteResult{}, err
	}
	j, failure, err := l.dependencies(ctx, dir, sl)
	if err != nil {
		return SuiteResult{}, err
	}
	if failure != "" {
		return SuiteResult{Outcome: PrepareFailed, Output: failure, Seconds: time.Since(start).Seconds()}, nil
	}
	r, err := l.suiteRuns(ctx, suiteRun{j: j, sl: sl, spec: spec, only: job.Only, config: cfg}, reruns)
	l.trimCache()
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
	j      jobDir
	sl     slot
	spec   suiteSpec
	only   []string
	config string // the base's runner settings copied into the tree, or ""
}

// suiteRuns builds the suite when needed and runs it reruns times, each run in a
// sandbox of its own.
func (l *Local) suiteRuns(ctx context.Context, s suiteRun, reruns int) (SuiteResult, error) {
	c := l.contract
	plan := suitePlan{only: s.only, config: s.config, toolchain: c.Toolchain, timeout: c.Timeout * suiteTimeoutFactor}
	src := filepath.Join(s.j.dir, "src")
	// Known before anything runs, so that a suite that fails to build is held only to
	// the tests it would have run.
	scope, err := suiteScope(src, c, s.only)
	if err != nil {
		return SuiteResult{}, err
	}
	if s.spec.build != nil {
		inv := s.j.invocation(s.sl, true)
		inv.script, inv.runs, inv.timeout = s.spec.build(plan), 1, c.BuildTimeout
		res, err := l.sb.execute(ctx, inv)
		if err != nil {
			return SuiteResult{}, fmt.Errorf("suite build: %w", err)
		}
		if !res.passed(1) {
			o, note := l.outcome(res, c.BuildTimeout, true)
			if o != OverLimit && o != Timeout {
				o = BuildFailed
			}
			return SuiteResult{Outcome: o, Scope: scope, Output: clip(res.output, "suite build: "+note, MaxOutput)}, nil
		}
	}
	if s.spec.units != nil {
		if plan.units, err = s.spec.units(src, c, s.only); err != nil {
			return SuiteResult{}, err
		}
	}
	agg := newSuiteTally()
	// A unit that hangs ends at its own timeout where the runner has one (Go), so the
	// others still report.
	timeout := c.Timeout * suiteTimeoutFactor * time.Duration(max(len(plan.units), 1))
	for run := 1; run <= reruns; run++ {
		if err := l.freshRunDir(src, s.sl); err != nil {
			return SuiteResult{}, err
		}
		inv := s.j.invocation(s.sl, false)
		inv.script, inv.runs, inv.timeout = s.spec.run(plan), 1, timeout
		res, err := l.sb.execute(ctx, inv)
		if err != nil {
			return SuiteResult{}, fmt.Errorf("suite run %d: %w", run, err)
		}
		if !res.passed(1) {
			if o, note := l.outcome(res, timeout, false); o != Fail {
				return SuiteResult{Outcome: o, Runs: run, Scope: scope, Output: clip(res.output, fmt.Sprintf("suite run %d of %d: %s", run, reruns, note), MaxOutput)}, nil
			}
		}
		reports, problem, err := s.spec.read(src, plan)
		if err != nil {
			return SuiteResult{}, err
		}
		if problem != "" {
			return SuiteResult{Outcome: Fail, Runs: run, Scope: scope, Output: clip(res.output, fmt.Sprintf("suite run %d of %d: %s", run, reruns, problem), MaxOutput)}, nil
		}
		agg.add(reports)
		if agg.failing() && agg.output == "" {
			agg.output = clip(res.output, fmt.Sprintf("suite run %d of %d", run, reruns), MaxOutput)
		}
	}
	r := agg.result()
	r.Scope = scope
	return r, nil
}
