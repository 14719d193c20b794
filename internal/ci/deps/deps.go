// Package deps prepares a tree's dependencies, once per set of manifests: when the
// contract has a prepare step (go mod download, a virtual environment, npm ci, cargo
// fetch), it runs in the sandbox with the network, in a directory holding only copies of
// the manifests, and what it installs there becomes a cache that builds and runs see
// read-only and offline. Judges that share a cache directory share the caches (a file
// lock per cache), and the caches stay under the cache limit. It is apart from the judge
// so that a verdict, a suite and an agent's command get their dependencies the same way.
package deps

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// Config says what a Cache prepares with.
type Config struct {
	Contract contract.Contract
	// Runner is a shell command that proves the contract's runner is there with the
	// prepared dependencies (languages.RunnerCheck), or "".
	Runner  string
	Sandbox *sandbox.Sandbox
	// Limit is how many bytes the prepared caches under the sandbox's DepsRoot may hold.
	Limit  int64
	Logger *slog.Logger
}

// Cache holds the prepares of one judge, so each set of manifests is prepared once, and
// a failed one is reported for every job that needs it without running again.
type Cache struct {
	cfg Config

	mu    sync.Mutex
	sets  map[string]*prepared
	stats Stats
	// held are the lock files of the caches this judge uses, each locked shared until
	// Release: no judge trims a cache in use.
	held []*os.File
}

// New is a Cache that has prepared nothing yet.
func New(cfg Config) *Cache { return &Cache{cfg: cfg, sets: map[string]*prepared{}} }

// Stats counts the prepares run: each set of manifests once.
type Stats struct {
	Prepares int
	Seconds  float64 // their wall time
}

// Stats returns the counters so far.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Release ends the judge's use of its dependency caches.
func (c *Cache) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.held {
		f.Close()
	}
	c.held = nil
}

// JobDir is a laid-out job: its directory, and what its tree builds and runs with.
type JobDir struct {
	Dir   string   // src/ holds the tree, tmp/ and home/ serve the fallback mode
	Deps  string   // host directory of the prepared dependencies, or ""
	Tools []string // host directories of the Tools the manifests call for
}

// Invocation is a build or runs in the job.
func (j JobDir) Invocation(lane sandbox.Lane, build bool) sandbox.Invocation {
	return sandbox.Invocation{Dir: j.Dir, Lane: lane, Build: build, Deps: j.Deps, Tools: j.Tools}
}

// ForJob finds, or makes, the prepared dependencies of a laid-out job's tree (dir/src).
// The string is a prepare_failed verdict's output when they cannot be had: the prepare
// failed, or the contract's runner is missing.
func (c *Cache) ForJob(ctx context.Context, dir string, lane sandbox.Lane) (JobDir, string, error) {
	j := JobDir{Dir: dir}
	src := filepath.Join(dir, "src")
	p := prepare{c: c, dir: dir, lane: lane}
	if c.cfg.Contract.Prepare != "" {
		var err error
		if p.files, p.key, err = c.manifests(src); err != nil {
			return j, "", err
		}
	}
	got, err := p.once(ctx)
	if err != nil {
		return j, "", err
	}
	if got.failure != "" {
		return j, got.failure, nil
	}
	if got.runner != "" {
		return j, got.runner, nil
	}
	j.Deps, j.Tools = got.dir, got.tools
	if err := c.mountPoints(src, j.Deps); err != nil {
		return j, "", err
	}
	return j, "", nil
}

// ForCommand is the prepared dependencies of an agent's working directory (dir, its
// exec directory), none when it has no manifests; the string is why they cannot be
// had. A missing test runner does not stop an agent's command.
func (c *Cache) ForCommand(ctx context.Context, dir string, lane sandbox.Lane) (JobDir, string, error) {
	j := JobDir{Dir: dir}
	if c.cfg.Contract.Prepare == "" {
		return j, "", nil
	}
	files, key, err := c.manifests(filepath.Join(dir, "src"))
	if err != nil || len(files) == 0 {
		return j, "", err
	}
	got, err := prepare{c: c, key: key, dir: dir, lane: lane, files: files}.once(ctx)
	if err != nil {
		return j, "", err
	}
	j.Deps, j.Tools = got.dir, got.tools
	return j, got.failure, nil
}

// manifests lists the tree's manifests and the key of their cache ("" when there are
// none: the tree is not prepared).
func (c *Cache) manifests(src string) ([]string, string, error) {
	files, err := manifestFiles(src, c.cfg.Contract.Manifests)
	if err != nil || len(files) == 0 {
		return nil, "", err
	}
	if more := c.cfg.Sandbox.Toolchain().Manifests; more != nil {
		named, err := namedFiles(src, more(src))
		if err != nil {
			return nil, "", err
		}
		files = slices.Compact(slices.Sorted(slices.Values(append(files, named...))))
	}
	key, err := depsKey(c.cfg.Contract, src, files)
	if err != nil {
		return nil, "", err
	}
	return files, key, nil
}

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

// namedFiles keeps the names (slash paths in the tree) that are regular files inside
// it: a name is the tree's to give, and a symbolic link out of the tree reaches no file.
func namedFiles(src string, names []string) ([]string, error) {
	root, err := os.OpenRoot(src)
	if err != nil {
		return nil, fmt.Errorf("manifests: %w", err)
	}
	defer root.Close()
	var files []string
	for _, name := range names {
		if fi, err := root.Lstat(filepath.FromSlash(name)); err == nil && fi.Mode().IsRegular() {
			files = append(files, name)
		}
	}
	return files, nil
}

// depsKey identifies a dependency cache: the prepare command, the toolchain and every
// manifest's path and content. Equal keys install the same dependencies.
func depsKey(c contract.Contract, src string, files []string) (string, error) {
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

// defaultPrepareTimeout bounds a prepare when the contract says nothing: a cold
// download of a real project's dependencies takes minutes.
const defaultPrepareTimeout = 10 * time.Minute
