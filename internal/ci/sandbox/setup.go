package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/treeperm"
)

// Mode selects how the sandbox isolates test processes.
type Mode string

const (
	Auto  Mode = "auto"  // bubblewrap when it works, else reduced isolation with a warning
	Bwrap Mode = "bwrap" // bubblewrap or fail
	None  Mode = "none"  // rlimits, a new session, a scrubbed env and timeouts only
)

// Config says what a sandbox is for. Zero fields take the defaults.
type Config struct {
	// Toolchain is what the sandbox exposes of the host beyond its base system (package
	// languages finds it).
	Toolchain Toolchain
	Mode      Mode // "" means Auto
	Limits    Limits
	// Parallel is how many lanes run at once; runtime.NumCPU() when zero.
	Parallel int
	// UIDBase is the first of Parallel host uids that lanes run as when the sandbox runs
	// as root (RLIMIT_NPROC does not apply to root); 61000 when zero.
	UIDBase int
	// WorkDir is where the sandbox makes its scratch directory for job directories; the
	// system's temporary directory when empty.
	WorkDir string
	// CacheDir holds the toolchain's build cache (CacheDir/go-build) and the prepared
	// dependencies (CacheDir/deps); a directory that dies with the sandbox when empty.
	CacheDir string
	// CacheLimit is how many bytes the build cache may hold (DefaultCacheLimit when zero).
	CacheLimit int64
	// Private are the caller's directories that no job may read (LocalOptions.Private).
	Private []string
	Logger  *slog.Logger
	// BuildTimeout bounds a build, and with it a build's CPU time (5 minutes when zero).
	BuildTimeout time.Duration
	// Memory bounds the resident memory of an invocation's processes together
	// (Contract.Memory); Limits.Memory when zero.
	Memory int64
	// Env adds variables to the otherwise scrubbed environment (Contract.Env).
	Env map[string]string
}

// DefaultCacheLimit bounds the toolchain cache: a busy server's Go cache for a few
// repositories fits with room to spare.
const DefaultCacheLimit = 4 << 30

// withDefaults fills the zero fields and refuses what cannot work.
func (c Config) withDefaults() (Config, error) {
	if c.Parallel <= 0 {
		c.Parallel = runtime.NumCPU()
	}
	if c.UIDBase == 0 {
		c.UIDBase = 61000
	}
	if c.UIDBase < 1000 {
		return c, fmt.Errorf("uid base %d: want at least 1000, away from system users", c.UIDBase)
	}
	if c.Mode == "" {
		c.Mode = Auto
	}
	switch c.Mode {
	case Auto, Bwrap, None:
	default:
		return c, fmt.Errorf("unknown sandbox %q (want auto, bwrap or none)", c.Mode)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.CacheLimit <= 0 {
		c.CacheLimit = DefaultCacheLimit
	}
	if c.BuildTimeout <= 0 {
		c.BuildTimeout = 5 * time.Minute
	}
	c.Limits = c.Limits.withDefaults()
	return c, nil
}

// New makes a sandbox: its scratch directory and lanes, the tools, the build cache,
// bubblewrap or the fallback mode, and proves the result can build and run.
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	work, err := makeWork(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{work: work, trim: &cacheTrim{limit: cfg.CacheLimit}, seed: &treeSeed{}, log: cfg.Logger}
	if err := s.makeLanes(cfg.Parallel, cfg.UIDBase); err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	if err := s.setUp(ctx, cfg); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// makeWork makes the scratch directory. Jobs run in other working directories, and
// toolchains refuse relative paths in their variables (GOPATH): every directory the
// sandbox hands out is absolute.
func makeWork(parent string) (string, error) {
	if parent == "" {
		parent = os.TempDir()
	} else if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("work dir: %w", err)
	}
	parent, err := filepath.Abs(parent)
	if err != nil {
		return "", fmt.Errorf("work dir: %w", err)
	}
	work, err := os.MkdirTemp(parent, "dixit-ci-")
	if err != nil {
		return "", fmt.Errorf("work dir: %w", err)
	}
	// Lanes' uids must reach their job directories in the fallback mode.
	if err := os.Chmod(work, 0o711); err != nil {
		os.RemoveAll(work)
		return "", fmt.Errorf("work dir: %w", err)
	}
	return work, nil
}

// makeLanes makes the lanes: as this process's uid, or as root each with a uid of its
// own and all with base as their group, which owns the build cache.
func (s *Sandbox) makeLanes(n, base int) error {
	s.all = make([]Lane, n)
	for i := range s.all {
		s.all[i] = Lane{Index: i, UID: os.Getuid(), GID: os.Getgid()}
	}
	if os.Geteuid() == 0 {
		uids, locks, err := claimUIDs(filepath.Join(os.TempDir(), "dixit-ci-uids"), base, n)
		if err != nil {
			return err
		}
		s.uidLocks = locks
		for i := range s.all {
			s.all[i].UID, s.all[i].GID = uids[i], base
		}
	}
	s.lanes = make(chan Lane, n)
	for _, lane := range s.all {
		s.lanes <- lane
	}
	return nil
}

// setUp finds the tools and the cache, picks bubblewrap or the fallback mode and proves
// it runs, in the first lane.
func (s *Sandbox) setUp(ctx context.Context, cfg Config) error {
	var err error
	s.root, s.limits, s.buildTimeout = os.Geteuid() == 0, clampLimits(cfg.Limits), cfg.BuildTimeout
	s.tc, s.env, s.system = cfg.Toolchain, cfg.Env, systemArgs()
	s.mounts = hostMounts(systemDirs(), s.tc.Mounts)
	if s.prlimit, err = exec.LookPath("prlimit"); err != nil {
		return fmt.Errorf("prlimit (util-linux) is required: %w", err)
	}
	if s.root {
		if s.setpriv, err = exec.LookPath("setpriv"); err != nil {
			return fmt.Errorf("setpriv (util-linux) is required when running as root: %w", err)
		}
	}
	if err := s.makeCache(cfg.CacheDir, s.all[0]); err != nil {
		return err
	}
	s.limitMemory(cfg, filepath.Base(s.work))
	if err := s.choose(ctx, cfg); err != nil {
		return err
	}
	if dir, err := s.mirrorDir(filepath.Dir(s.depsRoot)); err != nil {
		cfg.Logger.Warn("ci: runs compile the toolchain's own library again in every job", "why", err.Error())
	} else if s.mirror, err = mirrorArgs(dir, s.tc.Mirror.Under); err != nil {
		cfg.Logger.Warn("ci: runs compile the toolchain's own library again in every job", "why", err.Error())
	}
	// The lanes must read the seed, or go fails the prepare instead of going on to the
	// network. Bubblewrap shows them the module cache whatever the modes above it; without
	// it they reach it on the host's paths (/root is usually closed to them).
	if seed := s.tc.Seed; seed != "" {
		from := filepath.Dir(filepath.Dir(seed)) // the module cache, which bwrap binds
		if s.bwrap == "" {
			from = "/"
		}
		s.seeded = !s.root || othersReach(from, seed)
	}
	return nil
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
func (s *Sandbox) limitMemory(cfg Config, tag string) {
	bytes := s.limits.Memory
	if cfg.Memory > 0 {
		bytes = cfg.Memory
	}
	m, err := newMemoryLimit(bytes, cfg.Parallel, tag)
	if err != nil {
		s.limits.Memory = bytes
		cfg.Logger.Info("ci: memory bounded by address space per process, not resident memory", "limit_bytes", bytes, "why", err.Error())
		return
	}
	s.memory = m
}

// choose picks bubblewrap or the fallback mode and proves the sandbox runs.
func (s *Sandbox) choose(ctx context.Context, cfg Config) error {
	lane := s.all[0]
	reason := "sandbox none was chosen"
	var unavailable *UnavailableError
	if cfg.Mode != None {
		var err error
		if unavailable, err = s.tryBwrap(ctx, lane); err != nil {
			return err
		}
		if unavailable == nil {
			return nil
		}
		// Fail closed: only auto, which the local CLI uses, may carry on without it.
		if cfg.Mode == Bwrap {
			return unavailable
		}
		s.bwrap, reason = "", unavailable.Reason
	}
	if err := s.reduce(ctx, cfg.Private); err != nil {
		return err
	}
	warn := []any{"reason", reason, "isolation", s.Isolation()}
	if unavailable != nil {
		warn = append(warn, "to_sandbox", unavailable.Fix)
	}
	cfg.Logger.Warn("ci: isolation reduced: "+s.reducedHolds(), warn...)
	return s.selfCheck(ctx, lane)
}

// makeCache creates the toolchain's build cache under dir (work/cache when empty).
func (s *Sandbox) makeCache(dir string, lane Lane) error {
	if dir == "" {
		dir = filepath.Join(s.work, "cache")
	}
	// The self-check and the tests run in another working directory: a relative cache
	// (the default state directory is) would name nothing there.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("cache dir: %w", err)
	}
	s.depsRoot = filepath.Join(dir, "deps")
	if s.tc.CacheSub == "" {
		return nil
	}
	s.cacheDir = filepath.Join(dir, s.tc.CacheSub)
	if err := os.MkdirAll(s.cacheDir, 0o775); err != nil {
		return fmt.Errorf("cache dir: %w", err)
	}
	if s.root {
		if err := shareDir(s.cacheDir, lane.GID); err != nil {
			return fmt.Errorf("share cache dir with the lanes: %w", err)
		}
	}
	return nil
}

// tryBwrap looks for bubblewrap and proves it starts; nil when it does. The error is
// a self-check that started and then failed: a broken toolchain, not a missing sandbox.
func (s *Sandbox) tryBwrap(ctx context.Context, lane Lane) (*UnavailableError, error) {
	var err error
	if s.bwrap, err = exec.LookPath("bwrap"); err != nil {
		return &UnavailableError{Reason: "bwrap is not installed", Fix: installFix}, nil
	}
	if err := s.selfCheck(ctx, lane); err != nil {
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
func (s *Sandbox) selfCheck(ctx context.Context, lane Lane) error {
	dir, err := os.MkdirTemp(s.work, "check-")
	if err != nil {
		return fmt.Errorf("self-check dir: %w", err)
	}
	defer treeperm.RemoveAll(dir)
	for _, d := range []string{"src", "tmp", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("self-check dir: %w", err)
		}
	}
	if s.root {
		if err := ChownTree(dir, lane.UID, lane.GID); err != nil {
			return fmt.Errorf("self-check dir: %w", err)
		}
	}
	build := "true"
	if s.cacheDir != "" {
		build = fmt.Sprintf(`test -d "$%[1]s" && test -w "$%[1]s" || { echo "cache $%[1]s is not writable"; exit 1; }`, s.tc.CacheVar)
	}
	steps := []Invocation{
		{Dir: dir, Lane: lane, Build: true, Script: build, Runs: 1, Timeout: time.Minute},
		{Dir: dir, Lane: lane, Script: s.tc.Check, Runs: 1, Timeout: time.Minute},
	}
	for _, inv := range steps {
		res, err := s.Execute(ctx, inv)
		if err != nil {
			return startFailure{fmt.Errorf("self-check: %w", err)}
		}
		if !res.Passed(1) {
			return fmt.Errorf("self-check %q failed (exit %d): %s", inv.Script, res.Exit, Clip(res.Output, "", 2048))
		}
	}
	return nil
}
