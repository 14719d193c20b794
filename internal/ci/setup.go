package ci

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// newSandbox finds the tools, the toolchain and the cache, picks bubblewrap or the
// fallback mode, and proves the result can build and run.
func newSandbox(opts LocalOptions, work string, lane slot) (*sandbox, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tc, err := discoverToolchain(ctx, opts.Contract.Toolchain)
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
	if tc.cacheSub != "" {
		dir := opts.CacheDir
		if dir == "" {
			dir = filepath.Join(work, "cache")
		}
		// The self-check and the tests run in another working directory: a relative cache
		// (the default state directory is) would name nothing there.
		if dir, err = filepath.Abs(dir); err != nil {
			return nil, fmt.Errorf("cache dir: %w", err)
		}
		sb.cacheDir = filepath.Join(dir, tc.cacheSub)
		if err := os.MkdirAll(sb.cacheDir, 0o775); err != nil {
			return nil, fmt.Errorf("cache dir: %w", err)
		}
		if sb.root {
			if err := shareDir(sb.cacheDir, lane.gid); err != nil {
				return nil, fmt.Errorf("share cache dir with the lanes: %w", err)
			}
		}
	}

	reason := "sandbox none was chosen"
	if opts.Sandbox != SandboxNone {
		reason = ""
		if sb.bwrap, err = exec.LookPath("bwrap"); err != nil {
			reason = "bwrap is not installed"
		} else if err := sb.selfCheck(ctx, work, lane); err != nil {
			if !isStartFailure(err) {
				return nil, err
			}
			sb.bwrap = ""
			reason = fmt.Sprintf("bwrap cannot create a sandbox here: %v", err)
		}
		if reason != "" && opts.Sandbox == SandboxBwrap {
			return nil, fmt.Errorf("sandbox bwrap: %s", reason)
		}
	}
	if reason != "" {
		opts.Logger.Warn("ci: isolation reduced: tests can reach the network, the host's files and processes; "+
			"only rlimits, a new session, a scrubbed environment and timeouts apply",
			"reason", reason, "process_limit", sb.root)
		if err := sb.selfCheck(ctx, work, lane); err != nil {
			return nil, err
		}
	}
	return sb, nil
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
