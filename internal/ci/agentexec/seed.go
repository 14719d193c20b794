package agentexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// An agent's build cache is its own (Exec), so its first build used to compile the
// standard library: half a minute of CPU for every agent of every run. The seed is that
// work done once, by the toolchain's ExecSeed script on an empty directory (no agent's
// code), kept beside the judge's cache and never writable by a lane: a new private cache
// starts as links to its files (as root, where lanes cannot write a root-owned file) or
// copies of them. Go takes an entry it cannot refresh or rewrite for what it is, so an
// agent can neither change the seed nor see another agent's builds through it.

// seedDir is where the seed of the toolchain's ExecSeed lives: beside the judge's build
// cache, keyed by the script, or "" when there is none.
func (r *Runner) seedDir() string {
	tc := r.sb.Toolchain()
	if tc.ExecSeed == "" || r.sb.CacheDir() == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(tc.ExecSeed))
	return filepath.Join(filepath.Dir(r.sb.CacheDir()), "exec-seed", tc.CacheSub+"-"+hex.EncodeToString(sum[:6]))
}

// seed returns the seed's directory, building it the first time; "" when there is no
// seed (no script, or building it failed: the agents then compile on their own, as
// before, and the failure is logged).
func (r *Runner) seed(ctx context.Context, lane sandbox.Lane) string {
	dir := r.seedDir()
	if dir == "" {
		return ""
	}
	r.seedMu.Lock()
	defer r.seedMu.Unlock()
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	if r.seedFailed {
		return ""
	}
	if err := r.buildSeed(ctx, dir, lane); err != nil {
		r.seedFailed = true
		r.log.Warn("ci: cannot build the agents' seed build cache; each agent compiles the standard library itself", "dir", dir, "err", err)
		return ""
	}
	return dir
}

// buildSeed runs the toolchain's ExecSeed in a scratch directory with a fresh cache,
// then makes the cache the judge's, read-only, and moves it into place (a judge of
// another process may have done so first: its seed is as good).
func (r *Runner) buildSeed(ctx context.Context, dir string, lane sandbox.Lane) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(filepath.Dir(dir), ".building-")
	if err != nil {
		return err
	}
	defer treeperm.RemoveAll(scratch)
	src, cache := filepath.Join(scratch, "src"), filepath.Join(scratch, "cache")
	for _, d := range []string{src, cache} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if r.sb.Root() {
		if err := sandbox.ChownTree(scratch, lane.UID, lane.GID); err != nil {
			return err
		}
	}
	job, err := r.execJobDir(src, lane)
	if err != nil {
		return err
	}
	defer treeperm.RemoveAll(job)
	c := agentCommand{dir: src, lane: lane, script: r.sb.Toolchain().ExecSeed, timeout: 10 * defaultExecTimeout}
	res, err := r.execWithDeps(ctx, c, job, cache)
	if err != nil {
		return err
	}
	if res.Exit != 0 {
		return fmt.Errorf("the seed script exited %d: %s", res.Exit, sandbox.Clip([]byte(res.Output), "", 2048))
	}
	if err := freeze(cache, r.sb.Root()); err != nil {
		return err
	}
	if err := os.Rename(cache, dir); err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, syscall.ENOTEMPTY) {
		return err
	}
	return nil
}

// freeze makes a tree the judge's and read-only to everyone else: directories 0755,
// files 0444.
func freeze(dir string, root bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		if root {
			if err := os.Lchown(p, 0, 0); err != nil {
				return err
			}
		}
		if d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o444)
	})
}

// plant fills a new private cache from the seed: links to its files as root (the lanes
// cannot write a root-owned 0444 file, nor chmod it), copies otherwise (a lane of the
// judge's own uid could).
func plant(seed, cache string, root bool) error {
	return filepath.WalkDir(seed, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(seed, p)
		if err != nil {
			return err
		}
		to := filepath.Join(cache, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o775)
		case !d.Type().IsRegular():
			return nil
		case root:
			return os.Link(p, to)
		default:
			return copyFile(p, to)
		}
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// chownCache gives a private cache to the lane that runs the next command, but not the
// files linked from the seed: those stay the judge's, or the lane could rewrite every
// agent's copy at once.
func chownCache(cache string, lane sandbox.Lane) error {
	return filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == 0 && st.Nlink > 1 {
				return nil
			}
		}
		return os.Lchown(p, lane.UID, lane.GID)
	})
}
