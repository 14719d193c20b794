package gitstate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Workshop is a bare repository holding a run's hidden state. It is safe for concurrent use.
type Workshop struct {
	mu   sync.Mutex
	repo *git.Repository
	path string
}

// ErrRefMoved reports a compare-and-swap ref update that lost a race.
var ErrRefMoved = errors.New("ref moved concurrently")

// signature is fixed so that equal content always gives equal commit hashes: a replayed
// run recreates the very commits it made the first time.
var signature = object.Signature{Name: "dixit", Email: "dixit@localhost", When: time.Unix(0, 0).UTC()}

// Open opens the bare workshop repository at path, creating it if it does not exist.
func Open(path string) (*Workshop, error) {
	repo, err := git.PlainOpen(path)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("create workshop %s: %w", path, err)
		}
		repo, err = git.PlainInit(path, true)
	}
	if err != nil {
		return nil, fmt.Errorf("open workshop %s: %w", path, err)
	}
	return &Workshop{repo: repo, path: path}, nil
}

// Path returns the repository's directory.
func (w *Workshop) Path() string { return w.path }

// Ref returns the commit a ref points at; ok is false when the ref does not exist.
func (w *Workshop) Ref(name string) (commit string, ok bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ref, err := w.repo.Storer.Reference(plumbing.ReferenceName(name))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read ref %s: %w", name, err)
	}
	return ref.Hash().String(), true, nil
}

// SetRef moves a ref to commit if it still points at old ("" means the ref must not exist).
// Rollbacks use it: an agent's ref moves back to an earlier checkpoint commit.
func (w *Workshop) SetRef(name, old, commit string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.setRef(name, old, commit)
}

// setRef updates a loose ref the way git itself does: take <ref>.lock exclusively, check
// the current value, write the lock file and rename it over the ref. A crash at any point
// leaves the old value or the new one, never an empty ref.
func (w *Workshop) setRef(name, old, commit string) error {
	if !validRef.MatchString(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return fmt.Errorf("update ref %q: not a valid ref name", name)
	}
	path := filepath.Join(w.path, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) && staleLock(lock) {
		// A lock lives for microseconds; one this old was left by a killed process.
		os.Remove(lock)
		f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("update ref %s: %w (locked by another writer)", name, ErrRefMoved)
	}
	if err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	current := ""
	ref, err := w.repo.Storer.Reference(plumbing.ReferenceName(name))
	switch {
	case err == nil:
		current = ref.Hash().String()
	case !errors.Is(err, plumbing.ErrReferenceNotFound):
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if current != old {
		return fmt.Errorf("update ref %s: %w", name, ErrRefMoved)
	}
	if _, err := f.WriteString(commit + "\n"); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if err := os.Rename(lock, path); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	done = true
	return nil
}

var validRef = regexp.MustCompile(`^refs/[A-Za-z0-9._/-]+$`)

func staleLock(path string) bool {
	info, err := os.Stat(path)
	return err == nil && time.Since(info.ModTime()) > 10*time.Second
}

// Commit records tree as a new commit on ref, whose parent is the ref's current commit,
// and moves the ref to it. It returns the new commit's hash.
func (w *Workshop) Commit(ref, tree, message string) (string, error) {
	head, _, err := w.Ref(ref)
	if err != nil {
		return "", err
	}
	return w.commitOn(ref, head, tree, message)
}

// CommitAfter records tree as a commit whose parent is parent ("" for none) and moves ref
// to it from wherever it was. The commit depends only on its content and parent, so an
// agent that redoes work after a crash makes the very commit it made before.
func (w *Workshop) CommitAfter(ref, parent, tree, message string) (string, error) {
	head, _, err := w.Ref(ref)
	if err != nil {
		return "", err
	}
	commit, err := w.commit(ref, parent, tree, message)
	if err != nil {
		return "", err
	}
	if head == commit {
		return commit, nil
	}
	return commit, w.SetRef(ref, head, commit)
}

// commitOn commits tree on top of parent ("" for none) and moves ref from parent to it.
func (w *Workshop) commitOn(ref, parent, tree, message string) (string, error) {
	commit, err := w.commit(ref, parent, tree, message)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.setRef(ref, parent, commit); err != nil {
		return "", err
	}
	return commit, nil
}

func (w *Workshop) commit(ref, parent, tree, message string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var parents []plumbing.Hash
	if parent != "" {
		parents = append(parents, plumbing.NewHash(parent))
	}
	c := &object.Commit{
		Author: signature, Committer: signature, Message: message,
		TreeHash: plumbing.NewHash(tree), ParentHashes: parents,
	}
	obj := w.repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return "", fmt.Errorf("encode commit on %s: %w", ref, err)
	}
	h, err := w.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return "", fmt.Errorf("store commit on %s: %w", ref, err)
	}
	return h.String(), nil
}

// TreeOf returns the tree hash of a commit.
func (w *Workshop) TreeOf(commit string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, err := w.repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", commit, err)
	}
	return c.TreeHash.String(), nil
}

// Message returns a commit's message.
func (w *Workshop) Message(commit string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, err := w.repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", commit, err)
	}
	return c.Message, nil
}

func (w *Workshop) writeBlob(data []byte) (plumbing.Hash, error) {
	// A tree written again mostly holds blobs the store has (a coder's version of a big
	// repository changes a few files): hashing is far cheaper than compressing and
	// writing each one again.
	if h := plumbing.ComputeHash(plumbing.BlobObject, data); w.repo.Storer.HasEncodedObject(h) == nil {
		return h, nil
	}
	obj := w.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := wr.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.repo.Storer.SetEncodedObject(obj)
}

func (w *Workshop) readBlob(h plumbing.Hash) ([]byte, error) {
	b, err := w.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// ClearLocks removes every ref lock file. Call it only while holding the run's lease: then
// no other writer exists, and any lock was left by a process that died mid-update.
func (w *Workshop) ClearLocks() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return filepath.WalkDir(filepath.Join(w.path, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lock") {
			return err
		}
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("clear stale lock %s: %w", p, err)
		}
		return nil
	})
}
