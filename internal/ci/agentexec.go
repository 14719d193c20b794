package ci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// ExecResult is what an agent's command did.
type ExecResult struct {
	Exit      int     `json:"exit"`                 // exit status (128+n: signal n); -1 when it was killed by the judge
	Output    string  `json:"output,omitempty"`     // tail of stdout+stderr, at most ExecOutput bytes, valid UTF-8
	Note      string  `json:"note,omitempty"`       // why the judge ended it or which limit it hit, else ""
	TimedOut  bool    `json:"timed_out,omitempty"`  // it outlived its timeout and was killed
	OverLimit bool    `json:"over_limit,omitempty"` // an output or resource limit ended it
	Seconds   float64 `json:"seconds"`
}

// ErrNoSandbox is Exec's refusal on a judge without bubblewrap.
var ErrNoSandbox = errors.New("commands run only in a sandbox, and this judge has none (bubblewrap cannot start here)")

// ExecOutput caps ExecResult.Output.
const ExecOutput = 16 << 10

// defaultExecTimeout bounds a command when the caller gives no timeout.
const defaultExecTimeout = 2 * time.Minute

// Exec runs an agent's own command with /bin/sh -c in the same sandbox as tests, with
// the host directory dir bound read-write as its working directory (/sandbox/src).
//
// Unlike a test, the command may write to dir. As root, where commands run as a lane
// uid, dir's tree is lent to the lane for the duration and given back afterwards:
// files that existed keep their owner, new files belong to the caller (see lend).
// Commands on one dir are serialized. Each dir gets a build cache of its own, never
// the judge's: an agent must neither poison the judge's builds nor see what other
// trees compiled. The first build in a dir therefore compiles the standard library.
// Without bubblewrap every command is refused with ErrNoSandbox.
//
// The error is the judge's own failure (the sandbox did not start, the context
// ended); whatever the command does, a non-zero exit included, is a result.
func (l *Local) Exec(ctx context.Context, dir, command string, timeout time.Duration) (ExecResult, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return ExecResult{}, err
	}
	// Fail closed: without bubblewrap the command would see the host's files (as this
	// user, the workshop with the hidden tests) and its network.
	if !l.sb.Bubblewrap() {
		return ExecResult{}, ErrNoSandbox
	}
	if timeout <= 0 {
		timeout = defaultExecTimeout
	}
	dir, err := realDir(dir)
	if err != nil {
		return ExecResult{}, err
	}
	state := filepath.Join(l.sb.WorkDir(), "exec", dirKey(dir))
	if err := os.MkdirAll(state, 0o711); err != nil {
		return ExecResult{}, fmt.Errorf("exec state: %w", err)
	}
	unlock, err := lockFile(ctx, state+".lock")
	if err != nil {
		return ExecResult{}, err
	}
	defer unlock()
	lane, release, err := l.sb.Borrow(ctx)
	if err != nil {
		return ExecResult{}, err
	}
	defer release()
	r, err := l.execIn(ctx, agentCommand{dir: dir, state: state, lane: lane, script: command, timeout: timeout})
	if err != nil {
		return ExecResult{}, err
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
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
func (l *Local) execIn(ctx context.Context, c agentCommand) (ExecResult, error) {
	cache, err := l.execCache(c.state, c.lane)
	if err != nil {
		return ExecResult{}, err
	}
	job, err := l.execJobDir(c.dir, c.lane)
	if err != nil {
		return ExecResult{}, err
	}
	defer func() {
		if err := removeAll(job); err != nil {
			l.log.Warn("ci: cannot remove exec directory", "dir", job, "err", err)
		}
	}()
	var owners map[string]owner
	if l.sb.Root() {
		if owners, err = lend(c.dir, c.lane.UID, c.lane.GID); err != nil {
			return ExecResult{}, fmt.Errorf("lend %s to uid %d: %w", c.dir, c.lane.UID, err)
		}
	}
	r, runErr := l.execWithDeps(ctx, c, job, cache)
	if l.sb.Root() {
		if err := giveBack(c.dir, owners); err != nil {
			return ExecResult{}, fmt.Errorf("give %s back: %w", c.dir, err)
		}
	}
	return r, runErr
}

// execWithDeps runs the command with the prepared dependencies of the directory's
// manifests, or says why it did not run.
func (l *Local) execWithDeps(ctx context.Context, c agentCommand, job, cache string) (ExecResult, error) {
	deps, failure, err := l.deps.ForCommand(ctx, job, c.lane)
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec: %w", err)
	}
	if failure != "" {
		return ExecResult{Exit: -1, Output: failure, Note: "the judge could not install the dependencies the manifests name, so the command did not run"}, nil
	}
	// Builds run with umask 002 for the judge's shared cache; the agent's files need not.
	// The prepared dependencies are there as for tests, read-only, but node_modules is not
	// mounted into the agent's own directory: NODE_PATH finds it for require().
	inv := sandbox.Invocation{Dir: job, Lane: c.lane, Build: true, Script: "umask 022\n" + c.script, Runs: 1, Timeout: c.timeout, Deps: deps}
	tc := l.sb.Toolchain()
	if deps != "" && len(tc.DepsBinds) > 0 {
		tc.DepsBinds, tc.DepsPath = nil, []string{"{deps}/node_modules/.bin"}
		inv.Env = map[string]string{"NODE_PATH": "{deps}/node_modules"}
	}
	sb := l.sb.Variant(ExecOutput, cache, tc)
	res, err := sb.Execute(ctx, inv)
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec: %w", err)
	}
	return execResult(sb, res, c.timeout), nil
}

// execResult turns an invocation's result into what the agent's caller sees.
func execResult(sb *sandbox.Sandbox, res sandbox.Result, timeout time.Duration) ExecResult {
	// The output stays the command's own; the caller words the note for its reader.
	r := ExecResult{Exit: res.Exit, TimedOut: res.TimedOut, Output: sandbox.Clip(res.Output, "", ExecOutput)}
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
// "" when the toolchain has none.
func (l *Local) execCache(state string, lane sandbox.Lane) (string, error) {
	if l.sb.CacheDir() == "" {
		return "", nil
	}
	cache := filepath.Join(state, l.sb.Toolchain().CacheSub)
	if err := os.MkdirAll(cache, 0o775); err != nil {
		return "", fmt.Errorf("exec cache: %w", err)
	}
	if l.sb.Root() { // only this dir's commands use it, one at a time: the lane may own it
		if err := sandbox.ChownTree(cache, lane.UID, lane.GID); err != nil {
			return "", fmt.Errorf("exec cache: %w", err)
		}
	}
	return cache, nil
}

// execJobDir lays out the directory an invocation expects: src (here a symlink to the
// agent's dir, which bwrap binds), tmp and home.
func (l *Local) execJobDir(dir string, lane sandbox.Lane) (string, error) {
	job, err := os.MkdirTemp(l.sb.WorkDir(), "exec-")
	if err != nil {
		return "", fmt.Errorf("exec dir: %w", err)
	}
	err = os.Symlink(dir, filepath.Join(job, "src"))
	for _, d := range []string{"tmp", "home"} {
		if err == nil {
			err = os.Mkdir(filepath.Join(job, d), 0o755)
		}
	}
	if err == nil && l.sb.Root() {
		err = sandbox.ChownTree(job, lane.UID, lane.GID) // chownTree never follows the src symlink
	}
	if err != nil {
		removeAll(job)
		return "", fmt.Errorf("exec dir: %w", err)
	}
	return job, nil
}

// lockFile takes an exclusive flock on path, polling so ctx can end the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("exec lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("exec lock: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
