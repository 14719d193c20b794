package sandbox

import (
	"context"
	"sync"

	"github.com/dixit-bot/dixit/internal/treeperm"
)

// Each runs do for i in [0, n), each call in a lane of its own, as many at once as
// lanes are free (shared with every other caller of this sandbox), and waits for them.
// The first error cancels the context of the others and is returned; else the error of
// a context that ended, which also stops the launches.
func (s *Sandbox) Each(ctx context.Context, n int, do func(ctx context.Context, lane Lane, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
launch:
	for i := range n {
		var lane Lane
		select {
		case lane = <-s.lanes:
		case <-ctx.Done():
			break launch
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { s.lanes <- lane }()
			if err := do(ctx, lane, i); err != nil {
				errOnce.Do(func() {
					firstErr = err
					cancel()
				})
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// Borrow waits for a free lane; release gives it back.
func (s *Sandbox) Borrow(ctx context.Context) (lane Lane, release func(), err error) {
	select {
	case lane = <-s.lanes:
		return lane, func() { s.lanes <- lane }, nil
	case <-ctx.Done():
		return Lane{}, nil, ctx.Err()
	}
}

// Lanes lists every lane, free or not.
func (s *Sandbox) Lanes() []Lane { return append([]Lane(nil), s.all...) }

// Close removes the scratch directory (not a CacheDir that was given) and the lanes'
// memory cgroups, and frees the lanes' uids.
func (s *Sandbox) Close() error {
	releaseUIDs(s.uidLocks)
	s.memory.close()
	return treeperm.RemoveAll(s.work)
}

// RemoveJobDir deletes a job directory even after the code under test made parts of it
// read-only. The coders' working copies are reset with the same removal.
func RemoveJobDir(dir string) error { return treeperm.RemoveAll(dir) }

// WorkDir is the scratch directory, where job directories go.
func (s *Sandbox) WorkDir() string { return s.work }

// Bubblewrap reports whether jobs run in bubblewrap's namespaces.
func (s *Sandbox) Bubblewrap() bool { return s.bwrap != "" }

// Root reports whether the sandbox runs as root: lanes then run as uids of their own,
// and what a lane writes must be given to it first (ChownTree).
func (s *Sandbox) Root() bool { return s.root }

// CacheDir is the host directory of the toolchain's build cache, or "".
func (s *Sandbox) CacheDir() string { return s.cacheDir }

// DepsRoot is the host directory that holds the prepared dependency caches.
func (s *Sandbox) DepsRoot() string { return s.depsRoot }

// Toolchain is what the sandbox exposes of the host's toolchain.
func (s *Sandbox) Toolchain() Toolchain { return s.tc }

// Limits are the limits of every process the sandbox starts.
func (s *Sandbox) Limits() Limits { return s.limits }

// MemoryLimited reports whether a cgroup bounds each lane's resident memory (else each
// process's address space).
func (s *Sandbox) MemoryLimited() bool { return s.memory.active() }

// Variant is the sandbox with another output tail kept per run (keep bytes), another
// build cache (cache, "" for none) and another toolchain; it shares the lanes, the
// scratch directory and everything else. An agent's commands run in one.
func (s *Sandbox) Variant(keep int, cache string, tc Toolchain) *Sandbox {
	v := *s
	v.keep, v.cacheDir, v.tc = keep, cache, tc
	return &v
}
