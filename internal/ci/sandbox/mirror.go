package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Mirror describes compiled files the toolchain ships next to its own library that its
// runs look for somewhere else. Python run with PYTHONPYCACHEPREFIX (KeepDir/pycache,
// which keeps a coder's own __pycache__ out of the runs) reads bytecode only under that
// prefix, never from the __pycache__ directories of the standard library and of pytest,
// so every job compiled them again: about 0.35 s of CPU before its first test.
type Mirror struct {
	Dirs   []string // host directories of the library (Python: sys.path)
	Cache  string   // the name of the directory next to the sources (Python: __pycache__)
	Suffix string   // the compiled files' names end so (Python: ".cpython-311.pyc")
	Under  string   // where the runs look, below KeepDir (Python: "pycache")
}

// mirrorDir builds, once per cache directory and mirror, a tree of symbolic links in the
// layout the runs look in: for D/Cache/N<Suffix>, a link at D/N<Suffix> to it. With
// bubblewrap it is bound read-only under KeepDir (mirrorArgs), so no job can change what
// another reads; the runs' own bytecode goes beside it, and the interpreter still checks
// each compiled file against its source before using it. "" when there is nothing to
// mirror or no bubblewrap.
func (s *Sandbox) mirrorDir(root string) (string, error) {
	m := s.tc.Mirror
	if s.bwrap == "" || len(m.Dirs) == 0 || m.Cache == "" || m.Suffix == "" || m.Under == "" {
		return "", nil
	}
	sum := sha256.Sum256([]byte(strings.Join(append(slices.Clone(m.Dirs), m.Cache, m.Suffix), "\x00")))
	dir := filepath.Join(root, "bytecode-mirror", hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("bytecode mirror: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "new-")
	if err != nil {
		return "", fmt.Errorf("bytecode mirror: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("bytecode mirror: %w", err)
	}
	for _, d := range m.Dirs {
		if err := linkCompiled(tmp, d, m); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("bytecode mirror of %s: %w", d, err)
		}
	}
	// Judges sharing the cache may build it at once: the first rename wins.
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(dir); statErr != nil {
			return "", fmt.Errorf("bytecode mirror: %w", err)
		}
	}
	return dir, nil
}

// linkCompiled links the compiled files under host directory dir into the mirror at top.
func linkCompiled(top, dir string, m Mirror) error {
	if !filepath.IsAbs(dir) {
		return nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil // a zip on sys.path, or a directory that is not there
	}
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner of the library is compiled by the runs
		}
		if !e.IsDir() || e.Name() != m.Cache {
			return nil
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return filepath.SkipDir
		}
		into := filepath.Join(top, filepath.Dir(p))
		for _, f := range entries {
			name := f.Name()
			if !f.Type().IsRegular() || !strings.HasSuffix(name, m.Suffix) || strings.Count(name, ".") != strings.Count(m.Suffix, ".") {
				continue // only plain compiled files: not the optimised ones (name.opt-1.cpython-311.pyc)
			}
			if err := os.MkdirAll(into, 0o755); err != nil {
				return err
			}
			if err := os.Symlink(filepath.Join(p, name), filepath.Join(into, name)); err != nil && !os.IsExist(err) {
				return err
			}
		}
		return filepath.SkipDir
	})
}

// mirrorArgs bind the top directories of the mirror at dir read-only under KeepDir, in
// a KeepDir every uid may write (the runs' own bytecode goes there too).
func mirrorArgs(dir, under string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("bytecode mirror: %w", err)
	}
	at := path.Join(KeepDir, under)
	a := keepDirArgs(at)
	for _, e := range entries {
		if e.IsDir() {
			a = append(a, "--ro-bind", filepath.Join(dir, e.Name()), path.Join(at, e.Name()))
		}
	}
	return a, nil
}

// keepDirArgs make the directories from KeepDir down to dir, in the sandbox's /tmp, for
// every uid to write (the runs' own bytecode goes there) and to bind the judge's
// read-only caches below.
func keepDirArgs(dir string) []string {
	var a []string
	for _, d := range append(ancestors(dir), dir) {
		if d == KeepDir || strings.HasPrefix(d, KeepDir+"/") {
			a = append(a, "--perms", "1777", "--dir", d)
		}
	}
	return a
}
