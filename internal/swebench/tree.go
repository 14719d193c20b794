package swebench

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Limits on a base tree read from bases.git.
const (
	maxTreeFiles = 50_000
	maxTreeBytes = 1 << 30
	maxFileBytes = 64 << 20
)

// file is one file of a tree: its bytes, whether it is executable, and their digest.
type file struct {
	data []byte
	exec bool
	sum  [32]byte
}

func newFile(data []byte, exec bool) *file {
	return &file{data: data, exec: exec, sum: sha256.Sum256(data)}
}

// Tree is a source tree held in memory: the base's files, shared between the trees of
// an instance, with some replaced, added or removed. It implements ci.Tree: Hash is a
// digest of every path, mode and content, so equal hashes are equal trees.
type Tree struct {
	files map[string]*file
	once  sync.Once
	hash  string
}

// Hash is the SHA-256 of the tree's sorted (path, mode, content digest) list.
func (t *Tree) Hash() string {
	t.once.Do(func() {
		h := sha256.New()
		for _, p := range t.Paths() {
			f := t.files[p]
			mode := "100644"
			if f.exec {
				mode = "100755"
			}
			fmt.Fprintf(h, "%s %s %x\n", mode, p, f.sum)
		}
		t.hash = hex.EncodeToString(h.Sum(nil))
	})
	return t.hash
}

// Paths lists the tree's files in order.
func (t *Tree) Paths() []string {
	ps := make([]string, 0, len(t.files))
	for p := range t.files {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// File returns a file's bytes and whether the tree holds it.
func (t *Tree) File(p string) ([]byte, bool) {
	f, ok := t.files[p]
	if !ok {
		return nil, false
	}
	return f.data, true
}

// WriteTo writes the tree's files under dir, never through a link (os.Root).
func (t *Tree) WriteTo(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	made := map[string]bool{}
	for _, p := range t.Paths() {
		f := t.files[p]
		if d := path.Dir(p); d != "." && !made[d] {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
			for ; d != "."; d = path.Dir(d) {
				made[d] = true
			}
		}
		mode := os.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		w, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		_, err = w.Write(f.data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// with returns a copy of the tree with files set (nil data removes the file).
func (t *Tree) with(changes map[string]*file) *Tree {
	files := make(map[string]*file, len(t.files)+len(changes))
	for p, f := range t.files {
		files[p] = f
	}
	for p, f := range changes {
		if f == nil {
			delete(files, p)
		} else {
			files[p] = f
		}
	}
	return &Tree{files: files}
}

// Bases reads base trees from a bare repository that holds refs/bases/<instance_id>.
// It opens the repository with go-git, read-only: the git command refuses a repository
// without a refs/ directory, which go-git reads from packed-refs.
type Bases struct {
	repo *git.Repository
	mu   sync.Mutex
}

// Patched is t with the patch applied exactly (no fuzz); t stays as it is.
func (t *Tree) Patched(p *Patch) (*Tree, error) {
	changes, err := p.Apply(t, FuzzNone)
	if err != nil {
		return nil, err
	}
	return t.with(changes), nil
}

// OpenBases opens dir (a bare repository) for reading.
func OpenBases(dir string) (*Bases, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return &Bases{repo: repo}, nil
}

// Base reads the tree of refs/bases/<id> and checks it is the tree the instance names.
func (b *Bases) Base(inst *Instance) (*Tree, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	where := fmt.Sprintf("bases.git %s", inst.BaseRef)
	tree, err := b.tree(inst)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	files := map[string]*file{}
	var total int64
	err = tree.Files().ForEach(func(f *object.File) error {
		if !localPath(f.Name) {
			return fmt.Errorf("path %q is not a clean path inside the tree", f.Name)
		}
		switch f.Mode {
		case filemode.Regular, filemode.Deprecated, filemode.Executable:
		default:
			// Links and submodules: a tree that needs them is not one this package runs.
			return fmt.Errorf("%s: mode %s (only regular files are supported)", f.Name, f.Mode)
		}
		if len(files) >= maxTreeFiles {
			return fmt.Errorf("more than %d files", maxTreeFiles)
		}
		if f.Size > maxFileBytes {
			return fmt.Errorf("%s: %d bytes, more than %d", f.Name, f.Size, maxFileBytes)
		}
		if total += f.Size; total > maxTreeBytes {
			return fmt.Errorf("more than %d bytes", maxTreeBytes)
		}
		r, err := f.Reader()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		files[f.Name] = newFile(data, f.Mode == filemode.Executable)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: empty tree", where)
	}
	return &Tree{files: files}, nil
}

// tree is the tree of refs/bases/<id>, checked to be the one the instance names.
func (b *Bases) tree(inst *Instance) (*object.Tree, error) {
	ref, err := b.repo.Reference(plumbing.ReferenceName(inst.BaseRef), true)
	if err != nil {
		return nil, err
	}
	commit, err := b.repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("not a commit: %w", err)
	}
	if got := commit.TreeHash.String(); got != inst.BaseTree {
		return nil, fmt.Errorf("tree %s, but the instance's base_tree is %s", got, inst.BaseTree)
	}
	return commit.Tree()
}

// BaseFiles reads only the named files of refs/bases/<id> (those that exist) into a
// Tree: what a patch of them needs, without reading the thousands of others.
func (b *Bases) BaseFiles(inst *Instance, paths []string) (*Tree, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	where := fmt.Sprintf("bases.git %s", inst.BaseRef)
	tree, err := b.tree(inst)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	files := map[string]*file{}
	for _, p := range paths {
		f, err := tree.File(p)
		if errors.Is(err, object.ErrFileNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, p, err)
		}
		data, err := f.Contents()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, p, err)
		}
		files[p] = newFile([]byte(data), f.Mode == filemode.Executable)
	}
	return &Tree{files: files}, nil
}

// TreeFromDir reads a directory into a Tree (for tests and local use): regular files
// only, dot directories skipped.
func TreeFromDir(dir string) (*Tree, error) {
	files := map[string]*file{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = newFile(data, info.Mode()&0o111 != 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Tree{files: files}, nil
}
