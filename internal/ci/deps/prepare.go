package deps

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
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// prepared is the outcome of preparing one set of manifests, shared by every job whose
// tree has them: the directory, or why there is none.
type prepared struct {
	done    chan struct{}
	dir     string
	tools   []string // the directories of the Tools the manifests call for
	failure string   // the prepare's output and what to do; "" when ready
	runner  string   // the runner check's output when it failed, else ""
	seconds float64
}

// prepare is one set of manifests to prepare, for a job in a lane: their cache's key
// ("": the tree has none, and only the runner is checked), the job directory whose src/
// holds them, and the manifests themselves.
type prepare struct {
	c     *Cache
	key   string
	dir   string
	lane  sandbox.Lane
	files []string
	// tool, when set, is what this prepare installs instead of the manifests'
	// dependencies: a program they call for, in a cache of its own.
	tool *sandbox.Tool
	// toolDirs are the installed Tools the prepare runs with.
	toolDirs []string
}

// once runs the prepare of the key and the contract's runner check, once per judge;
// concurrent jobs with the same key wait for the first. A judge error (the sandbox
// broke, the context ended) is not remembered.
func (p prepare) once(ctx context.Context) (*prepared, error) {
	c := p.c
	c.mu.Lock()
	got, ok := c.sets[p.key]
	if !ok {
		got = &prepared{done: make(chan struct{})}
		c.sets[p.key] = got
	}
	c.mu.Unlock()
	if ok {
		select {
		case <-got.done:
			return got, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	err := p.run(ctx, got)
	if err != nil {
		c.mu.Lock()
		delete(c.sets, p.key)
		c.mu.Unlock()
	}
	close(got.done)
	if err != nil {
		return nil, err
	}
	return got, nil
}

// run fills out: the cache directory of the key, prepared now unless an earlier judge
// sharing the cache directory did, then the runner check with it.
func (p prepare) run(ctx context.Context, out *prepared) error {
	start := time.Now()
	if p.key != "" {
		// The tools come first: the prepare runs them, and builds and runs find them too
		// (a run line of "pnpm exec vitest"), even when an earlier judge prepared the key.
		tools, failure, err := p.tools(ctx, filepath.Join(p.dir, "src"))
		if err != nil || failure != "" {
			out.failure = failure
			return err
		}
		p.toolDirs, out.tools = tools, tools
		dir, failure, err := p.cacheDir(ctx)
		if err != nil {
			return err
		}
		if failure != "" {
			out.failure = failure
			return nil
		}
		out.dir = dir
	}
	if check := p.c.cfg.Runner; check != "" {
		inv := JobDir{Dir: p.dir, Tools: out.tools}.Invocation(p.lane, false)
		inv.Deps, inv.Script, inv.Runs, inv.Timeout = out.dir, check, 1, time.Minute
		res, err := p.c.cfg.Sandbox.Execute(ctx, inv)
		if err != nil {
			return fmt.Errorf("runner check: %w", err)
		}
		if !res.Passed(1) {
			out.runner = sandbox.Clip(res.Output, "the test runner is missing: fix the judge's environment, or the project's manifests", sandbox.MaxOutput)
		}
	}
	out.seconds = time.Since(start).Seconds()
	return nil
}

// readyMark is written into a dependency cache once its prepare succeeded.
const readyMark = ".dixit-prepared"

// cacheDir returns the cache directory of the key, running the prepare in it when no
// judge has yet. A file lock keeps two judges sharing CacheDir from preparing one key
// at once. The string is the output of a prepare that failed.
func (p prepare) cacheDir(ctx context.Context) (string, string, error) {
	if err := p.c.makeRoot(); err != nil {
		return "", "", err
	}
	dir := filepath.Join(p.c.cfg.Sandbox.DepsRoot(), p.key)
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
		dir, failure, err = p.locked(ctx)
		if err != nil || failure != "" {
			lock.Close()
			return dir, failure, err
		}
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err != nil {
			lock.Close()
			return "", "", fmt.Errorf("dependency cache lock: %w", err)
		}
	} else {
		p.c.touch(p.key)
	}
	p.c.mu.Lock()
	p.c.held = append(p.c.held, lock)
	p.c.mu.Unlock()
	return dir, "", nil
}

// locked is cacheDir under the key's exclusive lock. A cache already prepared has its
// mark's time refreshed: trimming goes by it.
func (p prepare) locked(ctx context.Context) (string, string, error) {
	sb := p.c.cfg.Sandbox
	dir := filepath.Join(sb.DepsRoot(), p.key)
	mark := filepath.Join(dir, readyMark)
	if _, err := os.Stat(mark); err == nil { // another judge prepared it meanwhile
		p.c.touch(p.key)
		return dir, "", nil
	}
	// A prepare that broke off leaves a directory without the mark: start afresh. The
	// prepare installs at the directory's final path (a virtual environment's scripts
	// name it), so it is never renamed.
	if err := treeperm.RemoveAll(dir); err != nil {
		return "", "", fmt.Errorf("dependency cache: %w", err)
	}
	if err := copyManifests(filepath.Join(p.dir, "src"), dir, p.files); err != nil {
		return "", "", err
	}
	if sb.Root() {
		if err := sandbox.ChownTree(dir, p.lane.UID, p.lane.UID); err != nil {
			return "", "", fmt.Errorf("give the dependency cache to uid %d: %w", p.lane.UID, err)
		}
	}
	if failure, err := p.install(ctx, dir, p.toolDirs); err != nil || failure != "" {
		return "", failure, err
	}
	if err := p.scratch(dir); err != nil {
		return "", "", err
	}
	// Builds and runs read it, whichever lane they are in; none may write it.
	if sb.Root() {
		if err := sandbox.ChownTree(dir, os.Getuid(), os.Getgid()); err != nil {
			return "", "", fmt.Errorf("dependency cache: %w", err)
		}
	}
	if err := os.WriteFile(mark, []byte(strings.Join(p.files, "\n")+"\n"), 0o644); err != nil {
		return "", "", fmt.Errorf("dependency cache: %w", err)
	}
	p.c.trim(p.key)
	return dir, "", nil
}

// install runs the contract's prepare (or installs p.tool) in the cache directory dir,
// with the network and the tools' directories; the string is why it failed, with its
// output (dir is then removed).
func (p prepare) install(ctx context.Context, dir string, tools []string) (string, error) {
	c, sb := p.c.cfg.Contract, p.c.cfg.Sandbox
	start := time.Now()
	script := c.Prepare
	if p.tool != nil {
		script = p.tool.Install
	}
	inv := sandbox.Invocation{Dir: p.dir, Lane: p.lane, Prepare: true, Deps: dir, Tools: tools, Script: script, Runs: 1,
		Timeout: cmpDuration(c.PrepareTimeout, defaultPrepareTimeout)}
	res, err := sb.Execute(ctx, inv)
	if err != nil {
		return "", fmt.Errorf("prepare: %w", err)
	}
	secs := time.Since(start).Seconds()
	p.c.mu.Lock()
	if p.tool == nil { // Prepares counts sets of manifests
		p.c.stats.Prepares++
	}
	p.c.stats.Seconds += secs
	p.c.mu.Unlock()
	what := strings.Join(p.files, " ")
	if p.tool != nil {
		what = p.tool.Name
	}
	p.c.cfg.Logger.Info("ci: dependencies prepared", "key", p.key, "manifests", what, "ok", res.Passed(1), "seconds", secs)
	if res.Passed(1) {
		return "", nil
	}
	treeperm.RemoveAll(dir)
	o, note := sb.Outcome(res, inv.Timeout, true)
	var head string
	switch {
	case p.tool != nil && missingCommand(res) == "npm":
		head = fmt.Sprintf("%s needs %s, which the judge installs with npm, and npm is not on the judge's PATH: install npm beside node", p.tool.For, p.tool.Name)
	case p.tool != nil:
		head = fmt.Sprintf("%s needs %s, which the judge could not install from the npm registry (%s): check the version it names, and that the registry is reachable from the judge", p.tool.For, p.tool.Name, note)
	case o == contract.Fail && missingCommand(res) != "":
		head = needs(missingCommand(res), p.files)
	default:
		if o == contract.Fail {
			note = "the prepare failed: " + note
		}
		head = fmt.Sprintf("prepare (%s, from %s): %s", firstLine(c.Prepare), strings.Join(p.files, ", "), note)
	}
	return sandbox.Clip(res.Output, head, sandbox.MaxOutput), nil
}

// tools installs, once per version, the programs the manifests in dir call for (their
// package manager), and returns their directories. The string is why one cannot be had.
func (p prepare) tools(ctx context.Context, dir string) ([]string, string, error) {
	find := p.c.cfg.Sandbox.Toolchain().Tools
	if p.tool != nil || find == nil {
		return nil, "", nil
	}
	var dirs []string
	for _, t := range find(dir) {
		h := sha256.Sum256([]byte("dixit-tool-v1\x00" + t.Name + "\x00" + t.Install))
		sub := prepare{c: p.c, key: "tool-" + hex.EncodeToString(h[:])[:24], dir: p.dir, lane: p.lane, tool: &t}
		got, failure, err := sub.cacheDir(ctx)
		if err != nil || failure != "" {
			return nil, failure, err
		}
		dirs = append(dirs, got)
	}
	return dirs, "", nil
}

// scratch makes, in a prepared cache, the directories where tools write caches of their
// own (Toolchain.DepsScratch): bubblewrap mounts a private writable one on each. Without
// it they are not made, so a tool that cannot write there looks elsewhere (vite: next
// to its config, in the tree).
func (p prepare) scratch(dir string) error {
	if p.tool != nil || !p.c.cfg.Sandbox.Bubblewrap() {
		return nil
	}
	for _, rel := range p.c.cfg.Sandbox.Toolchain().DepsScratch {
		at := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(filepath.Dir(at)); err != nil || !fi.IsDir() {
			continue
		}
		if err := os.MkdirAll(at, 0o755); err != nil {
			return fmt.Errorf("dependency cache: %w", err)
		}
	}
	return nil
}

// notFound is how a shell says it has no such command: dash "sh: 1: pnpm: not found"
// ("dixit: 1: eval: pnpm: not found" in the wrapper), bash "pnpm: command not found".
var notFound = regexp.MustCompile(`(?m)(?:^|: )([\w.@/+-]+): (?:command )?not found$`)

// missingCommand is the command a failed prepare did not find (its shell says so, and
// exits 127 when it was the last), or "".
func missingCommand(res sandbox.Result) string {
	if m := notFound.FindSubmatch(res.Output); m != nil {
		return string(m[1])
	}
	return ""
}

// needs says which manifest calls for a missing command, and what to do, in the user's
// words: "pnpm-lock.yaml needs pnpm, which the judge does not have: …".
func needs(command string, files []string) string {
	what := "the prepare runs " + command
	for _, f := range files {
		if lockfileOf(path.Base(f)) == command {
			what = f + " needs " + command
		}
	}
	if command == "pnpm" || command == "yarn" { // the node toolchain installs those it can name
		return what + ", which the judge does not have: name its version in package.json's packageManager (the judge installs it from npm), or install it on the judge's PATH"
	}
	return what + ", which the judge does not have: install it on the judge's PATH, or change test.prepare in dixit.yml"
}

// lockfileOf names the command a lockfile belongs to, or "".
func lockfileOf(name string) string {
	switch name {
	case "pnpm-lock.yaml":
		return "pnpm"
	case "yarn.lock":
		return "yarn"
	case "package-lock.json", "npm-shrinkwrap.json":
		return "npm"
	case "bun.lock", "bun.lockb":
		return "bun"
	case "Cargo.lock":
		return "cargo"
	case "go.sum":
		return "go"
	}
	return ""
}

// firstLine is a script's first line, "…" marking the rest.
func firstLine(s string) string {
	if first, _, more := strings.Cut(s, "\n"); more {
		return first + " …"
	}
	return s
}

// makeRoot creates the directory of the dependency caches, which the lanes traverse but
// do not list. Without bubblewrap they reach it on the host's paths, where the judge may
// create files for itself only (umask 077): the modes are set, not asked for.
func (c *Cache) makeRoot() error {
	root := c.cfg.Sandbox.DepsRoot()
	if err := os.MkdirAll(root, 0o711); err != nil {
		return fmt.Errorf("dependency cache: %w", err)
	}
	if err := os.Chmod(root, 0o711); err != nil {
		return fmt.Errorf("dependency cache: %w", err)
	}
	return c.cfg.Sandbox.OpenToLanes(root)
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
func (c *Cache) mountPoints(src, deps string) error {
	if deps == "" {
		return nil
	}
	sb := c.cfg.Sandbox
	for _, rel := range sb.Toolchain().DepsBinds {
		if !filepath.IsLocal(rel) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(deps, rel)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		at := filepath.Join(src, filepath.FromSlash(rel))
		if err := treeperm.RemoveAll(at); err != nil {
			return fmt.Errorf("replace %s: %w", rel, err)
		}
		if !sb.Bubblewrap() {
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
