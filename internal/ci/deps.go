package ci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// jobDir is a laid-out job: its directory, and what its tree builds and runs with.
type jobDir struct {
	dir  string            // src/ holds the tree, tmp/ and home/ serve the fallback mode
	deps string            // host directory of the prepared dependencies, or ""
	env  map[string]string // what the tree's layout calls for (toolchain.treeEnv)
}

// invocation of a build or runs in the job.
func (j jobDir) invocation(lane sandbox.Lane, build bool) sandbox.Invocation {
	return sandbox.Invocation{Dir: j.dir, Lane: lane, Build: build, Deps: j.deps, Env: j.env}
}

// prepared is the outcome of preparing one set of manifests, shared by every job whose
// tree has them: the directory, or why there is none.
type prepared struct {
	done    chan struct{}
	dir     string
	failure string // the prepare's output and what to do; "" when ready
	runner  string // the runner check's output when it failed, else ""
	seconds float64
}

// depsState holds the prepares of one judge, so each set of manifests is prepared once,
// and a failed one is reported for every job that needs it without running again.
type depsState struct {
	mu   sync.Mutex
	sets map[string]*prepared
	// held are the lock files of the caches this judge uses, each locked shared until
	// Close: no judge trims a cache in use.
	held []*os.File
}

// release ends the judge's use of its dependency caches.
func (d *depsState) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.held {
		f.Close()
	}
	d.held = nil
}

// defaultPrepareTimeout bounds a prepare when the contract says nothing: a cold
// download of a real project's dependencies takes minutes.
const defaultPrepareTimeout = 10 * time.Minute

// manifestFiles lists the tree's files matching the contract's manifest patterns, as
// slash paths relative to the tree, sorted. Symbolic links are not manifests.
func manifestFiles(src string, patterns []string) ([]string, error) {
	var files []string
	for _, pat := range patterns {
		matches, err := filepath.Glob(filepath.Join(src, filepath.FromSlash(pat)))
		if err != nil {
			return nil, fmt.Errorf("manifest pattern %q: %w", pat, err)
		}
		for _, m := range matches {
			fi, err := os.Lstat(m)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			rel, err := filepath.Rel(src, m)
			if err != nil {
				return nil, err
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// depsKey identifies a dependency cache: the prepare command, the toolchain and every
// manifest's path and content. Equal keys install the same dependencies.
func depsKey(c Contract, src string, files []string) (string, error) {
	h := sha256.New()
	for _, part := range []string{"dixit-deps-v1", c.Toolchain, c.Prepare} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			return "", fmt.Errorf("read manifest %s: %w", f, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// dependencies finds, or makes, the prepared dependencies of a laid-out job's tree. The
// string is a prepare_failed verdict's output when they cannot be had.
func (l *Local) dependencies(ctx context.Context, dir string, lane sandbox.Lane) (jobDir, string, error) {
	j := jobDir{dir: dir}
	src := filepath.Join(dir, "src")
	if l.sb.Toolchain().TreeEnv != nil {
		j.env = l.sb.Toolchain().TreeEnv(src)
	}
	key := ""
	var files []string
	if l.contract.Prepare != "" {
		var err error
		if files, err = manifestFiles(src, l.contract.Manifests); err != nil {
			return j, "", err
		}
		if len(files) > 0 {
			if key, err = depsKey(l.contract, src, files); err != nil {
				return j, "", err
			}
		}
	}
	p, err := l.prepareOnce(ctx, key, jobDir{dir: dir}, lane, files)
	if err != nil {
		return j, "", err
	}
	if p.failure != "" {
		return j, p.failure, nil
	}
	if p.runner != "" {
		return j, p.runner, nil
	}
	j.deps = p.dir
	if err := l.mountPoints(src, j.deps, lane); err != nil {
		return j, "", err
	}
	return j, "", nil
}

// prepareOnce runs the prepare of a key (none for "": the tree has no manifests) and the
// contract's runner check, once per judge; concurrent jobs with the same key wait for the
// first. A judge error (the sandbox broke, the context ended) is not remembered.
func (l *Local) prepareOnce(ctx context.Context, key string, j jobDir, lane sandbox.Lane, files []string) (*prepared, error) {
	l.deps.mu.Lock()
	if l.deps.sets == nil {
		l.deps.sets = map[string]*prepared{}
	}
	p, ok := l.deps.sets[key]
	if !ok {
		p = &prepared{done: make(chan struct{})}
		l.deps.sets[key] = p
	}
	l.deps.mu.Unlock()
	if ok {
		select {
		case <-p.done:
			return p, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	err := l.prepareKey(ctx, key, j, lane, files, p)
	if err != nil {
		l.deps.mu.Lock()
		delete(l.deps.sets, key)
		l.deps.mu.Unlock()
	}
	close(p.done)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// prepareKey fills p: the cache directory of key, prepared now unless an earlier judge
// sharing the cache directory did, then the runner check with it.
func (l *Local) prepareKey(ctx context.Context, key string, j jobDir, lane sandbox.Lane, files []string, p *prepared) error {
	start := time.Now()
	if key != "" {
		dir, failure, err := l.prepareDir(ctx, key, j, lane, files)
		if err != nil {
			return err
		}
		if failure != "" {
			p.failure = failure
			return nil
		}
		p.dir = dir
	}
	if check := runnerCheck(l.contract); check != "" {
		inv := j.invocation(lane, false)
		inv.Deps, inv.Script, inv.Runs, inv.Timeout = p.dir, check, 1, time.Minute
		res, err := l.sb.Execute(ctx, inv)
		if err != nil {
			return fmt.Errorf("runner check: %w", err)
		}
		if !res.Passed(1) {
			p.runner = sandbox.Clip(res.Output, "the test runner is missing: fix the judge's environment, or the project's manifests", MaxOutput)
		}
	}
	p.seconds = time.Since(start).Seconds()
	return nil
}

// readyMark is written into a dependency cache once its prepare succeeded.
const readyMark = ".dixit-prepared"

// prepareDir returns the cache directory of key, running the prepare in it when no
// judge has yet. A file lock keeps two judges sharing CacheDir from preparing one key
// at once. The string is the output of a prepare that failed.
func (l *Local) prepareDir(ctx context.Context, key string, j jobDir, lane sandbox.Lane, files []string) (string, string, error) {
	if err := l.makeDepsRoot(); err != nil {
		return "", "", err
	}
	dir := filepath.Join(l.sb.DepsRoot(), key)
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("dependency cache: %w", err)
	}
	// Shared while in use (any number of judges), exclusive while preparing: a judge
	// that finds the cache ready keeps its shared lock.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err != nil {
		lock.Close()
		return "", "", fmt.Errorf("dependency cache lock: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, readyMark)); err != nil {
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			lock.Close()
			return "", "", fmt.Errorf("dependency cache lock: %w", err)
		}
		var failure string
		dir, failure, err = l.prepareLocked(ctx, key, j, lane, files)
		if err != nil || failure != "" {
			lock.Close()
			return dir, failure, err
		}
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err != nil {
			lock.Close()
			return "", "", fmt.Errorf("dependency cache lock: %w", err)
		}
	} else {
		l.touch(key)
	}
	l.deps.mu.Lock()
	l.deps.held = append(l.deps.held, lock)
	l.deps.mu.Unlock()
	return dir, "", nil
}

// prepareLocked is prepareDir under the key's exclusive lock. A cache already prepared
// has its mark's time refreshed: trimming goes by it.
func (l *Local) prepareLocked(ctx context.Context, key string, j jobDir, lane sandbox.Lane, files []string) (string, string, error) {
	dir := filepath.Join(l.sb.DepsRoot(), key)
	mark := filepath.Join(dir, readyMark)
	if _, err := os.Stat(mark); err == nil { // another judge prepared it meanwhile
		l.touch(key)
		return dir, "", nil
	}
	// A prepare that broke off leaves a directory without the mark: start afresh. The
	// prepare installs at the directory's final path (a virtual environment's scripts
	// name it), so it is never renamed.
	if err := removeAll(dir); err != nil {
		return "", "", fmt.Errorf("dependency cache: %w", err)
	}
	if err := copyManifests(filepath.Join(j.dir, "src"), dir, files); err != nil {
		return "", "", err
	}
	if l.sb.Root() {
		if err := sandbox.ChownTree(dir, lane.UID, lane.UID); err != nil {
			return "", "", fmt.Errorf("give the dependency cache to uid %d: %w", lane.UID, err)
		}
	}
	start := time.Now()
	inv := sandbox.Invocation{Dir: j.dir, Lane: lane, Prepare: true, Deps: dir, Script: l.contract.Prepare, Runs: 1,
		Timeout: cmpDuration(l.contract.PrepareTimeout, defaultPrepareTimeout)}
	res, err := l.sb.Execute(ctx, inv)
	if err != nil {
		return "", "", fmt.Errorf("prepare: %w", err)
	}
	secs := time.Since(start).Seconds()
	l.mu.Lock()
	l.stats.Prepares++
	l.stats.PrepareSeconds += secs
	l.mu.Unlock()
	l.log.Info("ci: dependencies prepared", "key", key, "manifests", strings.Join(files, " "),
		"ok", res.Passed(1), "seconds", secs)
	if !res.Passed(1) {
		o, note := l.sb.Outcome(res, inv.Timeout, true)
		if o == Fail {
			note = "the prepare failed: " + note
		}
		head := fmt.Sprintf("prepare (%s, from %s): %s", l.contract.Prepare, strings.Join(files, ", "), note)
		removeAll(dir)
		return "", sandbox.Clip(res.Output, head, MaxOutput), nil
	}
	// Builds and runs read it, whichever lane they are in; none may write it.
	if l.sb.Root() {
		if err := sandbox.ChownTree(dir, os.Getuid(), os.Getgid()); err != nil {
			return "", "", fmt.Errorf("dependency cache: %w", err)
		}
	}
	if err := os.WriteFile(mark, []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		return "", "", fmt.Errorf("dependency cache: %w", err)
	}
	l.trimDeps(key)
	return dir, "", nil
}

// makeDepsRoot creates the directory of the dependency caches, which the lanes traverse
// but do not list. Without bubblewrap they reach it on the host's paths, where the judge
// may create files for itself only (umask 077): the modes are set, not asked for.
func (l *Local) makeDepsRoot() error {
	if err := os.MkdirAll(l.sb.DepsRoot(), 0o711); err != nil {
		return fmt.Errorf("dependency cache: %w", err)
	}
	if err := os.Chmod(l.sb.DepsRoot(), 0o711); err != nil {
		return fmt.Errorf("dependency cache: %w", err)
	}
	return l.sb.OpenToLanes(l.sb.DepsRoot())
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// copyManifests copies the manifests, and nothing else of the tree, into a fresh cache
// directory: the prepare installs from them and never sees the tree's code.
func copyManifests(src, dir string, files []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dependency cache: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("dependency cache: %w", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		if err != nil {
			return fmt.Errorf("read manifest %s: %w", f, err)
		}
		to := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("dependency cache: %w", err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return fmt.Errorf("dependency cache: %w", err)
		}
		if err := os.Chmod(to, 0o644); err != nil {
			return fmt.Errorf("dependency cache: %w", err)
		}
	}
	return nil
}

// mountPoints replaces what the tree holds where the cache's directories appear
// (node_modules): with bubblewrap an empty directory to mount on, without it a symbolic
// link to the cache. The judge's copy only: the coder's own node_modules never counts.
func (l *Local) mountPoints(src, deps string, lane sandbox.Lane) error {
	if deps == "" {
		return nil
	}
	for _, rel := range l.sb.Toolchain().DepsBinds {
		if !filepath.IsLocal(rel) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(deps, rel)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		at := filepath.Join(src, filepath.FromSlash(rel))
		if err := removeAll(at); err != nil {
			return fmt.Errorf("replace %s: %w", rel, err)
		}
		if !l.sb.Bubblewrap() {
			if err := os.Symlink(filepath.Join(deps, rel), at); err != nil {
				return fmt.Errorf("link %s: %w", rel, err)
			}
			continue
		}
		if err := contract.PlaceDir(src, path.Clean(rel)); err != nil {
			return fmt.Errorf("mount point %s: %w", rel, err)
		}
	}
	return nil
}

// execDeps is the prepared dependencies of an agent's working directory (through job, its
// exec directory), or "" when it has no manifests; the string is why they cannot be had.
// A missing test runner does not stop an agent's command.
func (l *Local) execDeps(ctx context.Context, job string, lane sandbox.Lane) (string, string, error) {
	if l.contract.Prepare == "" {
		return "", "", nil
	}
	src := filepath.Join(job, "src")
	files, err := manifestFiles(src, l.contract.Manifests)
	if err != nil || len(files) == 0 {
		return "", "", err
	}
	key, err := depsKey(l.contract, src, files)
	if err != nil {
		return "", "", err
	}
	p, err := l.prepareOnce(ctx, key, jobDir{dir: job}, lane, files)
	if err != nil {
		return "", "", err
	}
	return p.dir, p.failure, nil
}
