package ci

import (
	"fmt"
	"log/slog"
	"path"
	"runtime"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// LocalOptions configures a Local judge.
type LocalOptions struct {
	Contract Contract
	// WorkDir is where the judge makes its scratch directory for job trees; the system's
	// temporary directory when empty. Without bubblewrap, as root, the lanes' uids must be
	// able to traverse it.
	WorkDir string
	// CacheDir holds toolchain caches owned by the judge (Go: CacheDir/go-build), written
	// only by builds. Keep it between judges: a cold Go cache costs ~30 s of compiling the
	// standard library. Empty means a directory that dies with the judge.
	CacheDir string
	// CacheLimit is how many bytes CacheDir's build cache may hold: past it, the files used
	// least recently go (DefaultCacheLimit when zero). One job adds at most Limits.BuildFile
	// per file it builds, so the cap is soft by about that much. The dependency caches
	// (CacheDir/deps) have the same limit of their own, checked after each prepare; a
	// cache some judge is using is never removed.
	CacheLimit int64
	// Parallel is how many jobs run at once; runtime.NumCPU() when zero.
	Parallel int
	Limits   sandbox.Limits
	Sandbox  Sandbox // "" means SandboxAuto
	// UIDBase is the first of Parallel host uids that jobs run as when the judge runs as
	// root (RLIMIT_NPROC does not apply to root); 61000 when zero.
	UIDBase int
	// Private are the caller's directories that no job may read (its state, its verdict
	// cache). Bubblewrap never shows them. Without it, as root, the judge closes them to
	// other users, and from then on this process creates files for itself only (umask
	// 077); the lanes get traversal (o+x) of the paths to their job directories alone.
	Private []string
	Logger  *slog.Logger
}

const (
	defaultTimeout      = 60 * time.Second
	defaultBuildTimeout = 5 * time.Minute
)

func (o LocalOptions) withDefaults() (LocalOptions, error) {
	if o.Contract.Run == "" {
		return o, fmt.Errorf("contract: run command is empty")
	}
	if o.Contract.Path == "" {
		return o, fmt.Errorf("contract: path is empty")
	}
	if _, err := contract.Place(o.Contract, "id", ""); err != nil {
		return o, fmt.Errorf("contract: %w", err)
	}
	for _, pat := range o.Contract.Paths {
		if !doublestar.ValidatePattern(pat) {
			return o, fmt.Errorf("contract: test paths: bad pattern %q", pat)
		}
	}
	for _, pat := range o.Contract.Exclude {
		if _, err := path.Match(pat, ""); err != nil {
			return o, fmt.Errorf("contract: exclude pattern %q: %w", pat, err)
		}
	}
	if err := o.Contract.CheckReport(); err != nil {
		return o, fmt.Errorf("contract: %w", err)
	}
	if o.Contract.Timeout <= 0 {
		o.Contract.Timeout = defaultTimeout
	}
	if o.Contract.BuildTimeout <= 0 {
		o.Contract.BuildTimeout = defaultBuildTimeout
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.NumCPU()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.CacheLimit <= 0 {
		o.CacheLimit = DefaultCacheLimit
	}
	return o, nil
}

// sandboxConfig is what the judge's sandbox is made with: the contract's toolchain as the
// host has it, and the rest of the options (the sandbox checks and defaults them).
func (o LocalOptions) sandboxConfig(tc sandbox.Toolchain) sandbox.Config {
	return sandbox.Config{
		Toolchain: tc, Mode: o.Sandbox, Limits: o.Limits, Parallel: o.Parallel, UIDBase: o.UIDBase,
		WorkDir: o.WorkDir, CacheDir: o.CacheDir, CacheLimit: o.CacheLimit, Private: o.Private, Logger: o.Logger,
		BuildTimeout: o.Contract.BuildTimeout, Memory: o.Contract.Memory, Env: o.Contract.Env,
	}
}
