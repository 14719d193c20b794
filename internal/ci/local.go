package ci

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Local is the judge on this machine: each job gets a fresh copy of the coder's tree,
// is built once and run up to reruns times in a sandbox.
type Local struct {
	contract Contract
	work     string // this judge's own scratch directory, removed by Close
	sb       *sandbox
	slots    chan slot // free lanes; bounds concurrency across Run calls
	uidLocks []*os.File
	log      *slog.Logger

	mu    sync.Mutex
	stats Stats

	deps depsState // the dependency caches prepared so far

	cacheLimit int64      // bytes the toolchain cache may hold (LocalOptions.CacheLimit)
	trimMu     sync.Mutex // one cache walk at a time
	trimmed    time.Time  // when the cache was last walked
}

var _ Judge = (*Local)(nil)

// NewLocal prepares a local judge and proves its sandbox can run a command.
func NewLocal(opts LocalOptions) (*Local, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	parent := opts.WorkDir
	if parent == "" {
		parent = os.TempDir()
	} else if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	// Jobs run in other working directories, and toolchains refuse relative paths in
	// their variables (GOPATH): every directory the judge hands out is absolute.
	if parent, err = filepath.Abs(parent); err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	work, err := os.MkdirTemp(parent, "dixit-ci-")
	if err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	// Lanes' uids must reach their job directories in the fallback mode.
	if err := os.Chmod(work, 0o711); err != nil {
		os.RemoveAll(work)
		return nil, fmt.Errorf("work dir: %w", err)
	}
	l := &Local{contract: opts.Contract, work: work, log: opts.Logger, slots: make(chan slot, opts.Parallel), cacheLimit: opts.CacheLimit}
	lanes := make([]slot, opts.Parallel)
	for i := range lanes {
		lanes[i] = slot{index: i, uid: os.Getuid(), gid: os.Getgid()}
	}
	if os.Geteuid() == 0 {
		uids, locks, err := claimUIDs(filepath.Join(os.TempDir(), "dixit-ci-uids"), opts.UIDBase, opts.Parallel)
		if err != nil {
			os.RemoveAll(work)
			return nil, err
		}
		l.uidLocks = locks
		for i := range lanes {
			lanes[i].uid, lanes[i].gid = uids[i], opts.UIDBase // one group for all lanes: it owns the build cache
		}
	}
	if l.sb, err = newSandbox(opts, work, lanes[0]); err != nil {
		l.Close()
		return nil, err
	}
	for _, sl := range lanes {
		l.slots <- sl
	}
	return l, nil
}

// Close removes the judge's scratch directory (not CacheDir when one was given) and
// frees its lane uids.
func (l *Local) Close() error {
	releaseUIDs(l.uidLocks)
	if l.sb != nil {
		l.sb.memory.close()
	}
	l.deps.release()
	return removeAll(l.work)
}

// Stats returns the judge's counters so far.
func (l *Local) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
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
	places := make([]placement, len(jobs))
	for i, j := range jobs {
		if j.Tree == nil {
			return nil, fmt.Errorf("job %d (%s): no tree", i, j.Coder)
		}
		p, err := place(l.contract, j.Test)
		if err != nil {
			return nil, fmt.Errorf("job %d (%s): %w", i, j.Coder, err)
		}
		places[i] = p
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	verdicts := make([]Verdict, len(jobs))
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
			v, err := l.runJob(ctx, sl, reruns, jobs[i], places[i])
			if err != nil {
				errOnce.Do(func() {
					firstErr = fmt.Errorf("job %d (%s, test %s): %w", i, jobs[i].Coder, jobs[i].Test.ID, err)
					cancel()
				})
				return
			}
			verdicts[i] = v
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return verdicts, nil
}

// runJob runs one job in a fresh directory.
func (l *Local) runJob(ctx context.Context, sl slot, reruns int, job Job, p placement) (Verdict, error) {
	start := time.Now()
	dir, err := os.MkdirTemp(l.work, "job-")
	if err != nil {
		return Verdict{}, fmt.Errorf("job dir: %w", err)
	}
	defer func() {
		if err := removeAll(dir); err != nil {
			l.log.Warn("ci: cannot remove job directory", "dir", dir, "err", err)
		}
	}()
	if err := l.prepare(dir, job, p.rel, sl); err != nil {
		return Verdict{}, err
	}
	j, failure, err := l.dependencies(ctx, dir, sl)
	if err != nil {
		return Verdict{}, err
	}
	if failure != "" {
		return Verdict{Outcome: PrepareFailed, Output: failure, Seconds: time.Since(start).Seconds()}, nil
	}
	v, err := l.execute(ctx, j, sl, reruns, p)
	l.trimCache()
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

// prepare lays out a job directory: the tree minus exclusions plus the test in src/,
// and the fallback mode's tmp/ and home/, all owned by the lane.
func (l *Local) prepare(dir string, job Job, rel string, sl slot) error {
	src := filepath.Join(dir, "src")
	for _, d := range []string{"src", "tmp", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("job dir: %w", err)
		}
	}
	if err := job.Tree.WriteTo(src); err != nil {
		return fmt.Errorf("write tree %s: %w", job.Tree.Hash(), err)
	}
	if err := exclude(src, l.contract.Exclude); err != nil {
		return fmt.Errorf("exclude files: %w", err)
	}
	if err := placeTest(src, rel, job.Test.Content); err != nil {
		return fmt.Errorf("write test %s: %w", rel, err)
	}
	if l.sb.root {
		if err := chownTree(dir, sl.uid, sl.gid); err != nil {
			return fmt.Errorf("give job dir to uid %d: %w", sl.uid, err)
		}
	}
	return nil
}

// Isolation names the isolation in force, for reports: "bwrap", or "none: …" with what
// still holds without it.
func (l *Local) Isolation() string { return l.sb.isolation() }
