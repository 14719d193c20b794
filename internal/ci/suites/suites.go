// Package suites runs a repository's own test suite as a regression guard (issue 20,
// item 3), and compares what it did on a tree with what it did on the base.
//
// Run runs the tests a tree already has, through the same job directories,
// dependency prepare, sandbox, limits and memory cgroup as verdicts: a coder's tree is
// untrusted code whichever tests run on it. Each rerun is a sandbox of its own, so a
// failing run does not stop the next one (the verdict wrapper stops at the first), and
// each test's outcome is read from its runner's report (package languages says how): Go
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
// removes from a coder's tree before placing a vetted test. Job.Tests lays the
// base's test files over the tree, after the tree's own are removed, so a coder cannot
// weaken an existing test to keep it passing. Python also takes pytest's settings from
// the base (-c), so a coder's pytest.ini cannot deselect or rewrite tests. What Exclude
// does not match stays the tree's: test helpers, Rust unit tests inside src/.
//
// Every unit of a suite (a Go package, a Node file, a Rust binary, a pytest session)
// gets ten times the contract's timeout, and a run the sum of its units'; Go packages
// also stop at their own -test.timeout, so one that hangs fails its running test and
// the others still report. Each process may take as much CPU time as its unit's bound (one
// pytest session runs every selected file in one process).
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
package suites

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// Job asks for a tree's own tests to be run.
type Job struct {
	Coder string // name, for logs only
	// Tree is the tree under test: a coder's, a patch's or the base.
	Tree contract.Tree
	// Tests is the tree whose test files (those the contract's Exclude matches) replace
	// Tree's own, so a tree cannot edit the tests it is checked against; nil runs Tree's
	// own tests as they are.
	Tests contract.Tree
	// Only restricts the suite: Go package directories ("pkg/a", "." for the root),
	// Python and Node test files or directories, Rust target files, relative to the
	// tree's root (Java runs every class whatever it says). nil runs
	// everything; empty (not nil) runs nothing, as Affected says of a change that
	// touches no package.
	Only []string
}

// Skipped is a test's outcome in a suite when its runner skipped it in some run and it
// failed in none.
const Skipped contract.Outcome = "skipped"

// XFailed is a pytest test's outcome in a suite when it failed as its xfail mark
// expected in some run and neither failed nor was skipped in any.
const XFailed contract.Outcome = "xfailed"

// Result is what became of a tree's own tests.
type Result struct {
	// Outcome is Pass when the suite ran and reported, whatever its tests did; else why
	// it did not: BuildFailed, Timeout, OverLimit, PrepareFailed (the environment: the
	// dependencies or the runner, never the tests), or Fail (no report came back).
	Outcome contract.Outcome `json:"outcome"`
	// Tests holds each test the runner reported, by name: Pass only when it passed in
	// every run, else Fail, Skipped or XFailed. Go: "import/path.TestX" (top-level tests);
	// Python: "tests/test_x.py::test_y" (pytest's node id); Node and TypeScript:
	// "test/x.test.js::name"; Rust: "tests/it.rs::name", "src/lib.rs::tests::name";
	// Java: "calc.CalcTest#half()".
	Tests map[string]contract.Outcome `json:"tests,omitempty"`
	// Passed counts the runs each test passed in, out of Runs: flakiness shows here.
	Passed map[string]int `json:"passed,omitempty"`
	// Messages holds a failing test's first line of failure, where its runner gives one.
	Messages map[string]string `json:"messages,omitempty"`
	Runs     int               `json:"runs"`
	// Scope is what a restricted suite (Job.Only) covered: Go import paths, test
	// files. Regressions holds a tree to the tests within it; nil (JSON null) is the
	// whole suite, empty is nothing.
	Scope   []string `json:"scope"`
	Output  string   `json:"output,omitempty"` // tail of the failing run's output, capped at sandbox.MaxOutput
	Seconds float64  `json:"seconds"`
}

// ErrNoSuite is returned for a contract whose toolchain has no way yet to run a tree's
// own tests.
var ErrNoSuite = errors.New("the judge cannot run the repository's own tests for this toolchain")

// suiteTimeoutFactor bounds one unit of a suite (a Go package, a Node test file, a Rust
// test binary, or a whole pytest session) in units of the contract's per-test timeout:
// a unit holds many tests. A run of the suite gets that much per unit.
const suiteTimeoutFactor = 10

// Runner runs suites with the judge's contract, sandbox and dependency caches.
type Runner struct {
	contract contract.Contract
	sb       *sandbox.Sandbox
	deps     *deps.Cache
	log      *slog.Logger
}

// New is a Runner on the judge's sandbox and dependency caches.
func New(c contract.Contract, sb *sandbox.Sandbox, d *deps.Cache, log *slog.Logger) *Runner {
	return &Runner{contract: c, sb: sb, deps: d, log: log}
}

// Run runs each job's suite reruns times, as many at once as the sandbox has free lanes,
// and returns their results in job order. An error is the judge's own failure.
func (r *Runner) Run(ctx context.Context, reruns int, jobs []Job) ([]Result, error) {
	spec, ok := languages.SuiteFor(r.contract)
	if !ok {
		return nil, fmt.Errorf("toolchain %q: %w", r.contract.Toolchain, ErrNoSuite)
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
	results := make([]Result, len(jobs))
	err := r.sb.Each(ctx, len(jobs), func(ctx context.Context, lane sandbox.Lane, i int) error {
		res, err := r.runJob(ctx, suiteJob{job: jobs[i], lane: lane, spec: spec, reruns: reruns})
		if err != nil {
			return fmt.Errorf("suite job %d (%s): %w", i, jobs[i].Coder, err)
		}
		results[i] = res
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// suiteJob is one job of a Run, in its lane; j and config once it is laid out.
type suiteJob struct {
	job    Job
	lane   sandbox.Lane
	spec   languages.Suite
	reruns int
	j      deps.JobDir
	config string // the base's runner settings copied into the tree, or ""
}

// runJob lays out one tree, prepares its dependencies, builds its suite when the
// toolchain needs a build, and runs it.
func (r *Runner) runJob(ctx context.Context, s suiteJob) (Result, error) {
	start := time.Now()
	if s.job.Only != nil && len(s.job.Only) == 0 {
		return Result{Outcome: contract.Pass, Tests: map[string]contract.Outcome{}, Runs: s.reruns, Scope: []string{}}, nil
	}
	dir, err := os.MkdirTemp(r.sb.WorkDir(), "suite-")
	if err != nil {
		return Result{}, fmt.Errorf("job dir: %w", err)
	}
	defer func() {
		if err := treeperm.RemoveAll(dir); err != nil {
			r.log.Warn("ci: cannot remove suite directory", "dir", dir, "err", err)
		}
	}()
	if s.config, err = r.layOut(dir, s.job, s.lane); err != nil {
		return Result{}, err
	}
	var failure string
	if s.j, failure, err = r.deps.ForJob(ctx, dir, s.lane); err != nil {
		return Result{}, err
	}
	if failure != "" {
		return Result{Outcome: contract.PrepareFailed, Output: failure, Seconds: time.Since(start).Seconds()}, nil
	}
	res, err := r.runs(ctx, s)
	r.sb.TrimCache()
	if err != nil {
		return Result{}, err
	}
	res.Seconds = time.Since(start).Seconds()
	r.log.Debug("ci: suite", "coder", s.job.Coder, "outcome", res.Outcome, "tests", len(res.Tests),
		"runs", res.Runs, "seconds", res.Seconds)
	return res, nil
}

// runs builds the suite when needed and runs it reruns times, each run in a sandbox of
// its own.
func (r *Runner) runs(ctx context.Context, s suiteJob) (Result, error) {
	c := r.contract
	plan := languages.SuitePlan{Only: s.job.Only, Config: s.config, Toolchain: c.Toolchain, Timeout: c.Timeout * suiteTimeoutFactor}
	src := filepath.Join(s.j.Dir, "src")
	// Known before anything runs, so that a suite that fails to build is held only to
	// the tests it would have run.
	var scope []string
	if s.job.Only != nil && s.spec.Scope != nil {
		var err error
		if scope, err = s.spec.Scope(src, c, s.job.Only); err != nil {
			return Result{}, err
		}
	}
	if failed, err := r.build(ctx, s, plan); err != nil || failed != nil {
		if failed != nil {
			failed.Scope = scope
			return *failed, nil
		}
		return Result{}, err
	}
	if s.spec.Units != nil {
		var err error
		if plan.Units, err = s.spec.Units(src, c, s.job.Only); err != nil {
			return Result{}, err
		}
	}
	res, err := r.reruns(ctx, s, plan)
	if err != nil {
		return Result{}, err
	}
	res.Scope = scope
	return res, nil
}

// build builds the suite when the language needs a build; the result is a suite that
// did not build, nil when it built.
func (r *Runner) build(ctx context.Context, s suiteJob, plan languages.SuitePlan) (*Result, error) {
	c := r.contract
	if s.spec.Build == nil {
		return nil, nil
	}
	inv := s.j.Invocation(s.lane, true)
	inv.Script, inv.Runs, inv.Timeout = s.spec.Build(plan), 1, c.BuildTimeout
	res, err := r.sb.Execute(ctx, inv)
	if err != nil {
		return nil, fmt.Errorf("suite build: %w", err)
	}
	if res.Passed(1) {
		return nil, nil
	}
	o, note := r.sb.Outcome(res, c.BuildTimeout, true)
	if o != contract.OverLimit && o != contract.Timeout {
		o = contract.BuildFailed
	}
	return &Result{Outcome: o, Output: sandbox.Clip(res.Output, "suite build: "+note, sandbox.MaxOutput)}, nil
}

// reruns runs a built suite reruns times and adds up what its tests did; a run that
// timed out, went over a limit or reported nothing ends the suite.
func (r *Runner) reruns(ctx context.Context, s suiteJob, plan languages.SuitePlan) (Result, error) {
	src := filepath.Join(s.j.Dir, "src")
	agg := newTally()
	// A unit that hangs ends at its own timeout where the runner has one (Go), so the
	// others still report.
	timeout := r.contract.Timeout * suiteTimeoutFactor * time.Duration(max(len(plan.Units), 1))
	for run := 1; run <= s.reruns; run++ {
		if err := r.freshRunDir(src, s.lane); err != nil {
			return Result{}, err
		}
		inv := s.j.Invocation(s.lane, false)
		inv.Script, inv.Runs, inv.Timeout = s.spec.Run(plan), 1, timeout
		inv.UnitCPU = r.contract.Timeout * suiteTimeoutFactor
		res, err := r.sb.Execute(ctx, inv)
		if err != nil {
			return Result{}, fmt.Errorf("suite run %d: %w", run, err)
		}
		note := fmt.Sprintf("suite run %d of %d", run, s.reruns)
		if !res.Passed(1) {
			if o, why := r.sb.Outcome(res, timeout, false); o != contract.Fail {
				return Result{Outcome: o, Runs: run, Output: sandbox.Clip(res.Output, note+": "+why, sandbox.MaxOutput)}, nil
			}
		}
		reports, problem, err := s.spec.Read(src, plan)
		if err != nil {
			return Result{}, err
		}
		if problem != "" {
			return Result{Outcome: contract.Fail, Runs: run, Output: sandbox.Clip(res.Output, note+": "+problem, sandbox.MaxOutput)}, nil
		}
		agg.add(reports)
		if agg.failing() && agg.output == "" {
			agg.output = sandbox.Clip(res.Output, note, sandbox.MaxOutput)
		}
	}
	return agg.result(), nil
}

// checkOnly refuses a Job.Only entry that is not a clean path inside the tree.
func checkOnly(p string) error {
	if p == "." {
		return nil
	}
	if !contract.LocalPath(p) {
		return fmt.Errorf("only %q: want a clean relative path inside the tree", p)
	}
	return nil
}
