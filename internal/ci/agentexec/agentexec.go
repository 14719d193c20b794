// Package agentexec runs an agent's own shell commands (go build, go test, pytest...) in
// the judge's sandbox, on the agent's working directory: the same bubblewrap, limits and
// prepared dependencies as tests, with a build cache of the directory's own, and never
// without bubblewrap. It is apart from the judge's verdicts because it is the one place
// where code an agent wrote runs with write access to a directory outside the sandbox's
// own (the agent's), which it lends to the lane and takes back (ownership.go).
package agentexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// Result is what an agent's command did.
type Result struct {
	Exit      int     `json:"exit"`                 // exit status (128+n: signal n); -1 when it was killed by the judge
	Output    string  `json:"output,omitempty"`     // tail of stdout+stderr, at most MaxOutput bytes, valid UTF-8
	Note      string  `json:"note,omitempty"`       // why the judge ended it or which limit it hit, else ""
	TimedOut  bool    `json:"timed_out,omitempty"`  // it outlived its timeout and was killed
	OverLimit bool    `json:"over_limit,omitempty"` // an output or resource limit ended it
	Seconds   float64 `json:"seconds"`
}

// ErrNoSandbox is Exec's refusal on a judge without bubblewrap.
var ErrNoSandbox = errors.New("commands run only in a sandbox, and this judge has none (bubblewrap cannot start here)")

// MaxOutput caps Result.Output.
const MaxOutput = 16 << 10

// defaultExecTimeout bounds a command when the caller gives no timeout.
const defaultExecTimeout = 2 * time.Minute

// Runner runs agents' commands on the judge's sandbox and dependency caches.
type Runner struct {
	sb   *sandbox.Sandbox
	deps *deps.Cache
	log  *slog.Logger

	seedMu     sync.Mutex // one seed build at a time (seed.go)
	seedFailed bool       // building the seed failed once: not tried again
}

// New is a Runner on the judge's sandbox and dependency caches.
func New(sb *sandbox.Sandbox, d *deps.Cache, log *slog.Logger) *Runner {
	return &Runner{sb: sb, deps: d, log: log}
}

// Exec runs an agent's own command with /bin/sh -c in the same sandbox as tests, with
// the host directory dir bound read-write as its working directory (/sandbox/src).
//
// Unlike a test, the command may write to dir. As root, where commands run as a lane
// uid, dir's tree is lent to the lane for the duration and given back afterwards:
// files that existed keep their owner, new files belong to the caller (see lend).
// Commands on one dir are serialized. Each dir gets a build cache of its own, never
// the judge's: an agent must neither poison the judge's builds nor see what other
// trees compiled. It starts from a seed the judge built once, read-only (seed.go), so
// the first build in a dir does not compile the standard library again.
// Without bubblewrap every command is refused with ErrNoSandbox.
//
// The error is the judge's own failure (the sandbox did not start, the context
// ended); whatever the command does, a non-zero exit included, is a result.
func (r *Runner) Exec(ctx context.Context, dir, command string, timeout time.Duration) (Result, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	// Fail closed: without bubblewrap the command would see the host's files (as this
	// user, the workshop with the hidden tests) and its network.
	if !r.sb.Bubblewrap() {
		return Result{}, ErrNoSandbox
	}
	if timeout <= 0 {
		timeout = defaultExecTimeout
	}
	dir, err := realDir(dir)
	if err != nil {
		return Result{}, err
	}
	state := filepath.Join(r.sb.WorkDir(), "exec", dirKey(dir))
	if err := os.MkdirAll(state, 0o711); err != nil {
		return Result{}, fmt.Errorf("exec state: %w", err)
	}
	unlock, err := lockFile(ctx, state+".lock")
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	lane, release, err := r.sb.Borrow(ctx)
	if err != nil {
		return Result{}, err
	}
	defer release()
	res, err := r.execIn(ctx, agentCommand{dir: dir, state: state, lane: lane, script: command, timeout: timeout})
	if err != nil {
		return Result{}, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// agentCommand is one command of an agent's, in the lane it runs in.
type agentCommand struct {
	dir     string // the agent's directory, bound read-write
	state   string // the directory's lock and build cache, in the judge's scratch directory
	lane    sandbox.Lane
	script  string
	timeout time.Duration
}

// execIn runs a command in a sandbox of the judge's with the directory's own build cache
// and a longer output tail, with the directory lent to the lane while it runs (as root).
func (r *Runner) execIn(ctx context.Context, c agentCommand) (Result, error) {
	cache, err := r.execCache(ctx, c.state, c.lane)
	if err != nil {
		return Result{}, err
	}
	job, err := r.execJobDir(c.dir, c.lane)
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if err := treeperm.RemoveAll(job); err != nil {
			r.log.Warn("ci: cannot remove exec directory", "dir", job, "err", err)
		}
	}()
	var owners map[string]owner
	if r.sb.Root() {
		if owners, err = lend(c.dir, c.lane.UID, c.lane.GID); err != nil {
			return Result{}, fmt.Errorf("lend %s to uid %d: %w", c.dir, c.lane.UID, err)
		}
	}
	res, runErr := r.execWithDeps(ctx, c, job, cache)
	if r.sb.Root() {
		if err := giveBack(c.dir, owners); err != nil {
			return Result{}, fmt.Errorf("give %s back: %w", c.dir, err)
		}
	}
	return res, runErr
}

// execWithDeps runs the command with the prepared dependencies of the directory's
// manifests, or says why it did not run.
func (r *Runner) execWithDeps(ctx context.Context, c agentCommand, job, cache string) (Result, error) {
	j, failure, err := r.deps.ForCommand(ctx, job, c.lane)
	if err != nil {
		return Result{}, fmt.Errorf("exec: %w", err)
	}
	if failure != "" {
		return Result{Exit: -1, Output: failure, Note: "the judge could not install the dependencies the manifests name, so the command did not run"}, nil
	}
	// Builds run with umask 002 for the judge's shared cache; the agent's files need not.
	// The prepared dependencies are there as for tests, read-only, but node_modules is not
	// mounted into the agent's own directory: NODE_PATH finds it for require().
	inv := j.Invocation(c.lane, true)
	inv.Script, inv.Runs, inv.Timeout = "umask 022\n"+c.script, 1, c.timeout
	tc := r.sb.Toolchain()
	if j.Deps != "" && len(tc.DepsBinds) > 0 {
		tc.DepsBinds, tc.DepsPath = nil, []string{"{deps}/node_modules/.bin"}
		inv.Env = map[string]string{"NODE_PATH": "{deps}/node_modules"}
	}
	sb := r.sb.Variant(MaxOutput, cache, tc)
	res, err := sb.Execute(ctx, inv)
	if err != nil {
		return Result{}, fmt.Errorf("exec: %w", err)
	}
	return execResult(sb, res, c.timeout), nil
}

// execResult turns an invocation's result into what the agent's caller sees.
func execResult(sb *sandbox.Sandbox, res sandbox.Result, timeout time.Duration) Result {
	// The output stays the command's own; the caller words the note for its reader.
	r := Result{Exit: res.Exit, TimedOut: res.TimedOut, Output: sandbox.Clip(res.Output, "", MaxOutput)}
	switch {
	case res.TimedOut:
		r.Exit, r.Note = -1, fmt.Sprintf("timed out after %s", timeout)
	case res.Flooded:
		r.Exit, r.OverLimit, r.Note = -1, true, fmt.Sprintf("output exceeded %d bytes", sb.Limits().Output)
	default:
		r.Note = sb.LimitNote(res, true)
		r.OverLimit = r.Note != ""
	}
	return r
}

// realDir resolves dir to the absolute, symlink-free directory that gets bound.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("exec dir: %w", err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", fmt.Errorf("exec dir: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("exec dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("exec dir %s is not a directory", abs)
	}
	return abs, nil
}

// dirKey names a dir's state (lock and cache) inside the judge's scratch directory.
func dirKey(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:8])
}

// execCache is the dir's private build cache, given to the lane that runs the command;
// "" when the toolchain has none. A new one starts from the seed, when there is one.
func (r *Runner) execCache(ctx context.Context, state string, lane sandbox.Lane) (string, error) {
	if r.sb.CacheDir() == "" {
		return "", nil
	}
	cache := filepath.Join(state, r.sb.Toolchain().CacheSub)
	if _, err := os.Stat(cache); errors.Is(err, fs.ErrNotExist) {
		if seed := r.seed(ctx, lane); seed != "" {
			planting := cache + ".planting"
			err := treeperm.RemoveAll(planting)
			if err == nil {
				err = plant(seed, planting, r.sb.Root())
			}
			if err == nil {
				err = os.Rename(planting, cache)
			}
			if err != nil { // the agent compiles what the seed would have given it
				r.log.Warn("ci: cannot start an agent's build cache from the seed", "dir", cache, "err", err)
			}
		}
	}
	if err := os.MkdirAll(cache, 0o775); err != nil {
		return "", fmt.Errorf("exec cache: %w", err)
	}
	if r.sb.Root() { // only this dir's commands use it, one at a time: the lane may own it
		if err := chownCache(cache, lane); err != nil {
			return "", fmt.Errorf("exec cache: %w", err)
		}
	}
	return cache, nil
}

// execJobDir lays out the directory an invocation expects: src (here a symlink to the
// agent's dir, which bwrap binds), tmp and home.
func (r *Runner) execJobDir(dir string, lane sandbox.Lane) (string, error) {
	job, err := os.MkdirTemp(r.sb.WorkDir(), "exec-")
	if err != nil {
		return "", fmt.Errorf("exec dir: %w", err)
	}
	err = os.Symlink(dir, filepath.Join(job, "src"))
	for _, d := range []string{"tmp", "home"} {
		if err == nil {
			err = os.Mkdir(filepath.Join(job, d), 0o755)
		}
	}
	if err == nil && r.sb.Root() {
		err = sandbox.ChownTree(job, lane.UID, lane.GID) // chownTree never follows the src symlink
	}
	if err != nil {
		treeperm.RemoveAll(job)
		return "", fmt.Errorf("exec dir: %w", err)
	}
	return job, nil
}

// lockFile takes an exclusive flock on path, polling so ctx can end the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := sandbox.WaitLock(ctx, path, 50*time.Millisecond)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("exec lock: %w", err)
	}
	return func() { f.Close() }, nil
}
