package ci

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// newSandbox finds the tools, the toolchain and the cache, picks bubblewrap or the
// fallback mode, and proves the result can build and run.
func newSandbox(opts LocalOptions, work string, lane slot) (*sandbox, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tc, err := discoverToolchain(ctx, opts.Contract.Toolchain, opts.Contract.ToolchainPath)
	if err != nil {
		return nil, fmt.Errorf("toolchain: %w", err)
	}
	sb := &sandbox{
		root:         os.Geteuid() == 0,
		limits:       clampLimits(opts.Limits),
		buildTimeout: opts.Contract.BuildTimeout,
		tc:           tc,
		env:          opts.Contract.Env,
		system:       systemArgs(),
		mounts:       hostMounts(systemDirs(), tc.mounts),
	}
	if sb.prlimit, err = exec.LookPath("prlimit"); err != nil {
		return nil, fmt.Errorf("prlimit (util-linux) is required: %w", err)
	}
	if sb.root {
		if sb.setpriv, err = exec.LookPath("setpriv"); err != nil {
			return nil, fmt.Errorf("setpriv (util-linux) is required when running as root: %w", err)
		}
	}
	if err := sb.makeCache(opts.CacheDir, work, lane); err != nil {
		return nil, err
	}
	sb.limitMemory(opts, filepath.Base(work))
	checked, err := checkedSandbox(ctx, sb, opts, work, lane)
	if err != nil {
		sb.memory.close()
		return nil, err
	}
	// The lanes must read the seed, or go fails the prepare instead of going on to the
	// network. Bubblewrap shows them the module cache whatever the modes above it; without
	// it they reach it on the host's paths (/root is usually closed to them).
	if seed := checked.tc.seed; seed != "" {
		from := filepath.Dir(filepath.Dir(seed)) // the module cache, which bwrap binds
		if checked.bwrap == "" {
			from = "/"
		}
		checked.seeded = !checked.root || othersReach(from, seed)
	}
	return checked, nil
}

// othersReach reports whether other users can traverse every directory from top down to
// dir, and list dir.
func othersReach(top, dir string) bool {
	for _, d := range append(ancestors(dir), dir) {
		if d != top && !strings.HasPrefix(d, strings.TrimSuffix(top, "/")+"/") {
			continue
		}
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode().Perm()&0o004 != 0
}

// limitMemory bounds resident memory with cgroups when this process may make them (as
// root, or with a delegated cgroup), else each process's address space.
func (s *sandbox) limitMemory(opts LocalOptions, tag string) {
	bytes := s.limits.Memory
	if opts.Contract.Memory > 0 {
		bytes = opts.Contract.Memory
	}
	m, err := newMemoryLimit(bytes, opts.Parallel, tag)
	if err != nil {
		s.limits.Memory = bytes
		opts.Logger.Info("ci: memory bounded by address space per process, not resident memory", "limit_bytes", bytes, "why", err.Error())
		return
	}
	s.memory = m
}

// checkedSandbox picks bubblewrap or the fallback mode and proves the sandbox runs.
func checkedSandbox(ctx context.Context, sb *sandbox, opts LocalOptions, work string, lane slot) (*sandbox, error) {
	var err error

	reason := "sandbox none was chosen"
	var unavailable *UnavailableError
	if opts.Sandbox != SandboxNone {
		if unavailable, err = sb.tryBwrap(ctx, work, lane); err != nil {
			return nil, err
		}
		if unavailable == nil {
			return sb, nil
		}
		// Fail closed: only auto, which the local CLI uses, may carry on without it.
		if opts.Sandbox == SandboxBwrap {
			return nil, unavailable
		}
		sb.bwrap, reason = "", unavailable.Reason
	}
	if err := sb.reduce(ctx, work, opts.Private); err != nil {
		return nil, err
	}
	warn := []any{"reason", reason, "isolation", sb.isolation()}
	if unavailable != nil {
		warn = append(warn, "to_sandbox", unavailable.Fix)
	}
	opts.Logger.Warn("ci: isolation reduced: "+sb.reducedHolds(), warn...)
	if err := sb.selfCheck(ctx, work, lane); err != nil {
		return nil, err
	}
	return sb, nil
}

// makeCache creates the toolchain's build cache under dir (work/cache when empty).
func (s *sandbox) makeCache(dir, work string, lane slot) error {
	if dir == "" {
		dir = filepath.Join(work, "cache")
	}
	// The self-check and the tests run in another working directory: a relative cache
	// (the default state directory is) would name nothing there.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("cache dir: %w", err)
	}
	s.depsRoot = filepath.Join(dir, "deps")
	if s.tc.cacheSub == "" {
		return nil
	}
	s.cacheDir = filepath.Join(dir, s.tc.cacheSub)
	if err := os.MkdirAll(s.cacheDir, 0o775); err != nil {
		return fmt.Errorf("cache dir: %w", err)
	}
	if s.root {
		if err := shareDir(s.cacheDir, lane.gid); err != nil {
			return fmt.Errorf("share cache dir with the lanes: %w", err)
		}
	}
	return nil
}

// tryBwrap looks for bubblewrap and proves it starts; nil when it does. The error is
// a self-check that started and then failed: a broken toolchain, not a missing sandbox.
func (s *sandbox) tryBwrap(ctx context.Context, work string, lane slot) (*UnavailableError, error) {
	var err error
	if s.bwrap, err = exec.LookPath("bwrap"); err != nil {
		return &UnavailableError{Reason: "bwrap is not installed", Fix: installFix}, nil
	}
	if err := s.selfCheck(ctx, work, lane); err != nil {
		if !isStartFailure(err) {
			return nil, err
		}
		return &UnavailableError{Reason: "bwrap cannot create a sandbox here: " + strings.TrimSpace(err.Error()), Fix: namespaceFix()}, nil
	}
	return nil, nil
}

// UnavailableError says that the sandbox asked for cannot start on this host, and what
// would let it.
type UnavailableError struct {
	Reason string // what failed, with bwrap's own words
	Fix    string // what to install or change
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("sandbox bwrap cannot start: %s. To fix it: %s", e.Reason, e.Fix)
}

// startFailure marks a self-check that could not even start its sandbox.
type startFailure struct{ err error }

func (e startFailure) Error() string { return e.err.Error() }
func (e startFailure) Unwrap() error { return e.err }

func isStartFailure(err error) bool {
	var sf startFailure
	return errors.As(err, &sf)
}

// selfCheck builds (proving the cache is writable) and runs the toolchain's check in a
// throwaway job directory.
func (s *sandbox) selfCheck(ctx context.Context, work string, lane slot) error {
	dir, err := os.MkdirTemp(work, "check-")
	if err != nil {
		return fmt.Errorf("self-check dir: %w", err)
	}
	defer removeAll(dir)
	for _, d := range []string{"src", "tmp", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("self-check dir: %w", err)
		}
	}
	if s.root {
		if err := chownTree(dir, lane.uid, lane.gid); err != nil {
			return fmt.Errorf("self-check dir: %w", err)
		}
	}
	build := "true"
	if s.cacheDir != "" {
		build = fmt.Sprintf(`test -d "$%[1]s" && test -w "$%[1]s" || { echo "cache $%[1]s is not writable"; exit 1; }`, s.tc.cacheVar)
	}
	steps := []invocation{
		{dir: dir, slot: lane, build: true, script: build, runs: 1, timeout: time.Minute},
		{dir: dir, slot: lane, script: s.tc.check, runs: 1, timeout: time.Minute},
	}
	for _, inv := range steps {
		res, err := s.execute(ctx, inv)
		if err != nil {
			return startFailure{fmt.Errorf("self-check: %w", err)}
		}
		if !res.passed(1) {
			return fmt.Errorf("self-check %q failed (exit %d): %s", inv.script, res.exit, clip(res.output, "", 2048))
		}
	}
	return nil
}
