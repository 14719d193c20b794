package ci

import (
	"fmt"
	"log/slog"
	"path"
	"runtime"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Sandbox selects how the local judge isolates test processes.
type Sandbox string

const (
	SandboxAuto  Sandbox = "auto"  // bubblewrap when it works, else reduced isolation with a warning
	SandboxBwrap Sandbox = "bwrap" // bubblewrap or fail
	SandboxNone  Sandbox = "none"  // rlimits, a new session, a scrubbed env and timeouts only
)

// Limits bound every process the judge starts. Zero fields take the defaults.
type Limits struct {
	CPU      time.Duration // CPU time per process (RLIMIT_CPU)
	Memory   int64         // address space per process in bytes (RLIMIT_AS)
	Procs    int           // processes and threads of the sandbox user (RLIMIT_NPROC)
	FileSize int64         // largest file a process may write (RLIMIT_FSIZE)
	// BuildFile is the largest file a build may write: an object in the build cache or the
	// test binary. A tree that compiles a huge constant into an object fails over_limit.
	BuildFile int64
	Output    int64 // combined stdout+stderr of one run above which it is killed
	// The verdict keeps only the last MaxOutput bytes of the failing run.
}

// DefaultLimits are generous for unit tests and tight enough to survive hostile ones.
// Go's runtime and compiler both work under a 2 GiB address space.
func DefaultLimits() Limits {
	return Limits{
		CPU:       60 * time.Second,
		Memory:    2 << 30,
		Procs:     256,
		FileSize:  64 << 20,
		BuildFile: 256 << 20,
		Output:    8 << 20,
	}
}

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
	Limits   Limits
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

// DefaultCacheLimit bounds the toolchain cache: a busy server's Go cache for a few
// repositories fits with room to spare.
const DefaultCacheLimit = 4 << 30

// MaxOutput caps Verdict.Output.
const MaxOutput = 8 << 10

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
	if _, err := place(o.Contract, Test{ID: "id"}); err != nil {
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
	if o.UIDBase == 0 {
		o.UIDBase = 61000
	}
	if o.UIDBase < 1000 {
		return o, fmt.Errorf("uid base %d: want at least 1000, away from system users", o.UIDBase)
	}
	if o.Sandbox == "" {
		o.Sandbox = SandboxAuto
	}
	switch o.Sandbox {
	case SandboxAuto, SandboxBwrap, SandboxNone:
	default:
		return o, fmt.Errorf("unknown sandbox %q (want auto, bwrap or none)", o.Sandbox)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	d := DefaultLimits()
	if o.Limits.CPU <= 0 {
		o.Limits.CPU = d.CPU
	}
	if o.Limits.Memory <= 0 {
		o.Limits.Memory = d.Memory
	}
	if o.Limits.Procs <= 0 {
		o.Limits.Procs = d.Procs
	}
	if o.Limits.FileSize <= 0 {
		o.Limits.FileSize = d.FileSize
	}
	if o.Limits.Output <= 0 {
		o.Limits.Output = d.Output
	}
	if o.Limits.BuildFile <= 0 {
		o.Limits.BuildFile = d.BuildFile
	}
	if o.CacheLimit <= 0 {
		o.CacheLimit = DefaultCacheLimit
	}
	return o, nil
}
