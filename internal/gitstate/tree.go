package gitstate

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// File is one file of a tree, by slash-separated path.
type File struct {
	Path       string
	Content    []byte
	Executable bool
}

// WriteFiles stores files as a tree and returns its hash. Paths must be relative and clean.
func (w *Workshop) WriteFiles(files []File) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	blobs := make([]blob, 0, len(files))
	for _, f := range files {
		h, err := w.writeBlob(f.Content)
		if err != nil {
			return "", fmt.Errorf("store %s: %w", f.Path, err)
		}
		blobs = append(blobs, blob{path: f.Path, hash: h, executable: f.Executable})
	}
	return w.writeTree(blobs)
}

// blob is a file of a tree to be, its content stored already.
type blob struct {
	path       string
	hash       plumbing.Hash
	executable bool
}

// writeTree stores blobs as a tree and returns its hash; w.mu must be held.
func (w *Workshop) writeTree(blobs []blob) (string, error) {
	root := &dirNode{children: map[string]*dirNode{}}
	for _, b := range blobs {
		if err := checkPath(b.path); err != nil {
			return "", err
		}
		mode := filemode.Regular
		if b.executable {
			mode = filemode.Executable
		}
		root.add(strings.Split(b.path, "/"), object.TreeEntry{Mode: mode, Hash: b.hash})
	}
	h, err := w.writeDir(root)
	if err != nil {
		return "", fmt.Errorf("store tree: %w", err)
	}
	return h.String(), nil
}

// ImportDir stores the regular files under dir as a tree and returns its hash, leaving
// out names git takes for .git (see ReservedName). Symbolic links, other special files
// and what cannot be read are refused: the directory is meant to hold source only.
func (w *Workshop) ImportDir(dir string) (string, error) {
	tree, dropped, err := w.Import(dir, ImportOptions{})
	if err != nil {
		return "", err
	}
	for _, d := range dropped {
		if d.Why != whyReserved {
			return "", fmt.Errorf("import %s: %s: %s", dir, d.Path, d.Why)
		}
	}
	return tree, nil
}

// Files returns the files of a tree (or of a commit's tree), sorted by path.
func (w *Workshop) Files(hash string) ([]File, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := plumbing.NewHash(hash)
	tree, err := w.repo.TreeObject(h)
	if err != nil {
		c, cerr := w.repo.CommitObject(h)
		if cerr != nil {
			return nil, fmt.Errorf("read tree %s: %w", hash, err)
		}
		if tree, err = c.Tree(); err != nil {
			return nil, fmt.Errorf("read tree of %s: %w", hash, err)
		}
	}
	var out []File
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return fmt.Errorf("%s: unsupported mode %s", f.Name, f.Mode)
		}
		data, err := w.readBlob(f.Hash)
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Name, err)
		}
		out = append(out, File{Path: f.Name, Content: data, Executable: f.Mode == filemode.Executable})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", hash, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Checkout writes the files of a tree or commit under dir.
func (w *Workshop) Checkout(hash, dir string) error {
	files, err := w.Files(hash)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := checkPath(f.Path); err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("checkout %s: %w", f.Path, err)
		}
		mode := os.FileMode(0o644)
		if f.Executable {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Content, mode); err != nil {
			return fmt.Errorf("checkout %s: %w", f.Path, err)
		}
	}
	return nil
}

// checkPath refuses paths that could land outside a checkout.
func checkPath(p string) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "\\") {
		return fmt.Errorf("unsafe path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if ReservedName(part) {
			return fmt.Errorf("unsafe path %q: git reserves the name %q", p, part)
		}
	}
	return nil
}

type dirNode struct {
	children map[string]*dirNode
	entry    *object.TreeEntry // set for files
}

func (d *dirNode) add(parts []string, e object.TreeEntry) {
	if len(parts) == 1 {
		e.Name = parts[0]
		d.children[parts[0]] = &dirNode{entry: &e}
		return
	}
	child, ok := d.children[parts[0]]
	if !ok || child.entry != nil {
		child = &dirNode{children: map[string]*dirNode{}}
		d.children[parts[0]] = child
	}
	child.add(parts[1:], e)
}

func (w *Workshop) writeDir(d *dirNode) (plumbing.Hash, error) {
	entries := make([]object.TreeEntry, 0, len(d.children))
	for name, child := range d.children {
		if child.entry != nil {
			entries = append(entries, *child.entry)
			continue
		}
		h, err := w.writeDir(child)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// Git orders entries as if directory names ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	obj := w.repo.Storer.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.repo.Storer.SetEncodedObject(obj)
}

// Source is a commit's tree as the judge sees it (it implements ci.Tree).
type Source struct {
	w    *Workshop
	tree string
}

// Source returns the tree of commit for the judge.
func (w *Workshop) Source(commit string) (Source, error) {
	tree, err := w.TreeOf(commit)
	if err != nil {
		return Source{}, err
	}
	return Source{w: w, tree: tree}, nil
}

// Hash returns the git tree hash: equal trees, equal hashes.
func (s Source) Hash() string { return s.tree }

// WriteTo writes the tree's files under dir.
func (s Source) WriteTo(dir string) error { return s.w.Checkout(s.tree, dir) }
