package ci

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/agentexec"
	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/ci/suites"
)

// Local is the judge on this machine: each job gets a fresh copy of the coder's tree,
// is built once and run up to reruns times in a sandbox.
type Local struct {
	contract Contract
	sb       *sandbox.Sandbox // the sandbox, its lanes and its scratch directory
	log      *slog.Logger

	mu    sync.Mutex
	stats Stats

	deps   *deps.Cache       // the dependency caches prepared so far
	suites *suites.Runner    // the trees' own tests (RunSuite, Affected)
	cmds   *agentexec.Runner // the agents' commands (Exec)

	wireKey [32]byte // this judge's secret, from which each test's tripwires are drawn (arm.go)
}

var _ Judge = (*Local)(nil)

// NewLocal prepares a local judge and proves its sandbox can run a command.
func NewLocal(opts LocalOptions) (*Local, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tc, err := languages.Toolchain(ctx, opts.Contract.Toolchain, opts.Contract.ToolchainPath)
	if err != nil {
		return nil, fmt.Errorf("toolchain: %w", err)
	}
	sb, err := sandbox.New(ctx, opts.sandboxConfig(tc))
	if err != nil {
		return nil, err
	}
	d := deps.New(deps.Config{Contract: opts.Contract, Runner: languages.RunnerCheck(opts.Contract), Sandbox: sb,
		Limit: opts.CacheLimit, Logger: opts.Logger})
	l := &Local{contract: opts.Contract, sb: sb, log: opts.Logger, deps: d,
		suites: suites.New(opts.Contract, sb, d, opts.Logger), cmds: agentexec.New(sb, d, opts.Logger)}
	_, _ = rand.Read(l.wireKey[:]) // crypto/rand.Read never fails on Linux
	return l, nil
}

// Close removes the judge's scratch directory (not CacheDir when one was given) and
// frees its lane uids.
func (l *Local) Close() error {
	l.deps.Release()
	return l.sb.Close()
}

// Stats returns the judge's counters so far.
func (l *Local) Stats() Stats {
	l.mu.Lock()
	s := l.stats
	l.mu.Unlock()
	d := l.deps.Stats()
	s.Prepares, s.PrepareSeconds = d.Prepares, d.Seconds
	return s
}

// Run runs the jobs, Parallel at a time, and returns their verdicts in job order.
func (l *Local) Run(ctx context.Context, reruns int, jobs []Job) ([]Verdict, error) {
	start := time.Now()
	defer func() {
		l.mu.Lock()
		l.stats.Seconds += time.Since(start).Seconds()
		l.mu.Unlock()
	}()
	if reruns < 1 {
		reruns = 1
	}
	places := make([]contract.Placement, len(jobs))
	for i, j := range jobs {
		if j.Tree == nil {
			return nil, fmt.Errorf("job %d (%s): no tree", i, j.Coder)
		}
		p, err := contract.Place(l.contract, j.Test.ID, j.Test.Path)
		if err != nil {
			return nil, fmt.Errorf("job %d (%s): %w", i, j.Coder, err)
		}
		if err := checkSelect(l.contract, p, j.Test.Select); err != nil {
			return nil, fmt.Errorf("job %d (%s): %w", i, j.Coder, err)
		}
		places[i] = p
	}
	verdicts := make([]Verdict, len(jobs))
	err := l.sb.Each(ctx, len(jobs), func(ctx context.Context, lane sandbox.Lane, i int) error {
		v, err := l.runJob(ctx, lane, reruns, jobs[i], places[i])
		if err != nil {
			return fmt.Errorf("job %d (%s, test %s): %w", i, jobs[i].Coder, jobs[i].Test.ID, err)
		}
		verdicts[i] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return verdicts, nil
}

// runJob runs one job in a fresh directory.
func (l *Local) runJob(ctx context.Context, lane sandbox.Lane, reruns int, job Job, p contract.Placement) (Verdict, error) {
	start := time.Now()
	dir, err := os.MkdirTemp(l.sb.WorkDir(), "job-")
	if err != nil {
		return Verdict{}, fmt.Errorf("job dir: %w", err)
	}
	defer func() {
		if err := sandbox.RemoveJobDir(dir); err != nil {
			l.log.Warn("ci: cannot remove job directory", "dir", dir, "err", err)
		}
	}()
	plan := l.arm(p, job.Test)
	job.Test.Content = plan.content
	if err := l.layOut(dir, job, p.Rel, lane); err != nil {
		return Verdict{}, err
	}
	j, failure, err := l.deps.ForJob(ctx, dir, lane)
	if err != nil {
		return Verdict{}, err
	}
	if failure != "" {
		return Verdict{Outcome: PrepareFailed, Output: failure, Seconds: time.Since(start).Seconds()}, nil
	}
	l.sb.SeedTree(ctx, dir, lane) // the first job of a judge compiles the tree once for all
	v, err := l.execute(ctx, j, lane, reruns, plan)
	l.sb.TrimCache()
	if err != nil {
		return Verdict{}, err
	}
	v.Seconds = time.Since(start).Seconds()
	l.mu.Lock()
	l.stats.Executions++
	l.stats.Runs += v.Runs
	l.mu.Unlock()
	l.log.Debug("ci: verdict", "coder", job.Coder, "test", job.Test.ID, "outcome", v.Outcome,
		"runs", v.Runs, "seconds", v.Seconds)
	return v, nil
}

// layOut lays out a job directory: the tree minus exclusions plus the test in src/,
// and the fallback mode's tmp/ and home/, all owned by the lane.
func (l *Local) layOut(dir string, job Job, rel string, lane sandbox.Lane) error {
	src := filepath.Join(dir, "src")
	for _, d := range []string{"src", "tmp", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("job dir: %w", err)
		}
	}
	if err := job.Tree.WriteTo(src); err != nil {
		return fmt.Errorf("write tree %s: %w", job.Tree.Hash(), err)
	}
	if err := contract.RemoveExcluded(src, l.contract.Exclude); err != nil {
		return fmt.Errorf("exclude files: %w", err)
	}
	if err := contract.PlaceFile(src, rel, job.Test.Content); err != nil {
		return fmt.Errorf("write test %s: %w", rel, err)
	}
	if l.sb.Root() {
		if err := sandbox.ChownTree(dir, lane.UID, lane.GID); err != nil {
			return fmt.Errorf("give job dir to uid %d: %w", lane.UID, err)
		}
	}
	return nil
}

// Isolation names the isolation in force, for reports: "bwrap", or "none: …" with what
// still holds without it.
func (l *Local) Isolation() string { return l.sb.Isolation() }

// RunSuite runs each job's suite, the tree's own tests, reruns times and returns their
// results in job order (package suites). As with Run, an error is the judge's own
// failure.
func (l *Local) RunSuite(ctx context.Context, reruns int, jobs []SuiteJob) ([]SuiteResult, error) {
	return l.suites.Run(ctx, reruns, jobs)
}

// Affected is the Only of a suite job for a change: the Go packages the changed files
// touch and those that import them (suites.Runner.Affected); nil for all.
func (l *Local) Affected(ctx context.Context, job SuiteJob, changed []string) ([]string, error) {
	return l.suites.Affected(ctx, job, changed)
}

// Exec runs an agent's own command in the judge's sandbox, with the host directory dir
// bound read-write as its working directory (agentexec.Runner.Exec): never without
// bubblewrap (agentexec.ErrNoSandbox).
func (l *Local) Exec(ctx context.Context, dir, command string, timeout time.Duration) (agentexec.Result, error) {
	return l.cmds.Exec(ctx, dir, command, timeout)
}
