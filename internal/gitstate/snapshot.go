package gitstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Caps on a tree read into memory as a snapshot.
const (
	maxTreeFile  = 32 << 20
	maxTreeBytes = 256 << 20
	maxTreeFiles = 50000
)

// Snapshot is a tree held in memory whose hash is the git tree hash of its files: the hash
// the workshop repository gives the same content, so a judge backend can check that a
// runner judged the commit it was sent. It is the judge's ci.Tree for a coder's tree, a
// pull request's head or a directory on disk.
type Snapshot struct {
	hash  string
	files []File // sorted by path
}

// Hash returns the git tree hash of the files.
func (s *Snapshot) Hash() string { return s.hash }

// Len returns the number of files.
func (s *Snapshot) Len() int { return len(s.files) }

// Files returns the tree's files, as git records them.
func (s *Snapshot) Files() []File { return append([]File(nil), s.files...) }

// WriteTo writes the files under dir.
func (s *Snapshot) WriteTo(dir string) error {
	for _, f := range s.files {
		if err := checkPath(f.Path); err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if f.Executable {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Content, mode); err != nil {
			return err
		}
	}
	return nil
}

// memoryWorkshop is a workshop that lives in memory, to hash and walk with the same code
// as the run's own.
func memoryWorkshop() (*Workshop, error) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return nil, fmt.Errorf("create an in-memory repository: %w", err)
	}
	return &Workshop{repo: repo}, nil
}

// ReadDir reads the regular files under dir as a snapshot, with the walk Import makes (a
// .git directory at any depth is left out). Symbolic links, other special files and a tree
// past the caps are refused rather than left out: a judge must see the files as they are.
// An executable file (any x bit) is mode 100755 in the hash, as git records it.
func ReadDir(dir string) (*Snapshot, error) {
	scratch, err := memoryWorkshop()
	if err != nil {
		return nil, err
	}
	tree, dropped, err := scratch.Import(dir, ImportOptions{MaxFile: maxTreeFile, MaxFiles: maxTreeFiles, MaxBytes: maxTreeBytes})
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", dir, err)
	}
	for _, d := range dropped {
		if d.Why != whyReserved {
			return nil, fmt.Errorf("read tree %s: %s: %s (symbolic links and special files are refused)", dir, d.Path, d.Why)
		}
	}
	files, err := scratch.Files(tree)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", dir, err)
	}
	return &Snapshot{hash: tree, files: files}, nil
}

// ReadRevision reads the tree of a revision (a commit, branch, tag or any ref) of the git
// repository at dir (bare or not) or above it. Only committed content counts. Symbolic links
// and submodules are refused.
func ReadRevision(dir, rev string) (*Snapshot, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true}) // bare, a work tree's top, or a linked worktree
	if err != nil {
		repo, err = git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s is not a git repository", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		// go-git's words ("reference not found", "Revision invalid") name its internals.
		return nil, fmt.Errorf("repository %s has no branch, tag or commit %q", dir, rev)
	}
	commit, err := repo.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %s is not a commit: %w", dir, rev, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("repository %s: tree of %s: %w", dir, rev, err)
	}
	var files []File
	var total int64
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return fmt.Errorf("%s: mode %s (symbolic links and submodules are refused)", f.Name, f.Mode)
		}
		if f.Size > maxTreeFile {
			return fmt.Errorf("%s: larger than %d bytes", f.Name, maxTreeFile)
		}
		if total += f.Size; total > maxTreeBytes || len(files) >= maxTreeFiles {
			return fmt.Errorf("the tree is larger than %d bytes or %d files", maxTreeBytes, maxTreeFiles)
		}
		content, err := f.Contents()
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Name, err)
		}
		files = append(files, File{Path: f.Name, Content: []byte(content), Executable: f.Mode == filemode.Executable})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("repository %s at %s: %w", dir, rev, err)
	}
	out, err := SnapshotOf(files)
	if err != nil {
		return nil, fmt.Errorf("repository %s at %s: %w", dir, rev, err)
	}
	if out.hash != tree.Hash.String() { // cannot happen for regular files; proves the hash is git's
		return nil, fmt.Errorf("repository %s at %s: computed tree hash %s, git says %s", dir, rev, out.hash, tree.Hash)
	}
	return out, nil
}

// SnapshotOf holds files read from git elsewhere (a pull request's head, fetched) as a
// snapshot, with the same caps as the other readers.
func SnapshotOf(files []File) (*Snapshot, error) {
	var total int64
	for i, f := range files {
		if len(f.Content) > maxTreeFile {
			return nil, fmt.Errorf("%s: larger than %d bytes", f.Path, maxTreeFile)
		}
		if total += int64(len(f.Content)); total > maxTreeBytes || i >= maxTreeFiles {
			return nil, fmt.Errorf("the tree is larger than %d bytes or %d files", maxTreeBytes, maxTreeFiles)
		}
	}
	scratch, err := memoryWorkshop()
	if err != nil {
		return nil, err
	}
	tree, err := scratch.WriteFiles(files)
	if err != nil {
		return nil, err
	}
	stored, err := scratch.Files(tree) // sorted, and a path given twice is stored once
	if err != nil {
		return nil, err
	}
	return &Snapshot{hash: tree, files: stored}, nil
}
