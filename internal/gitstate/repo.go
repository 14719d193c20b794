package gitstate

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Caps on what is read from a user's repository (or a pull request's head, written by
// whoever opened it): one file, the whole tree, and the number of files. They are
// checked from the sizes git records, before any content is read: a tiny pack can name
// one huge blob many times.
const (
	maxRepoFile  = 32 << 20
	maxRepoBytes = 256 << 20
	maxRepoFiles = 50000
)

// ReadHead returns the files of the commit HEAD points at in the repository at dir, and
// that commit. Only committed content counts: a run is pinned to a revision, not to
// whatever the working tree holds. Symbolic links and submodules are skipped.
func ReadHead(dir string) ([]File, string, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, "", fmt.Errorf("open repository %s: %w", dir, err)
	}
	return headFiles(repo, dir)
}

// CheckRepository says, in a person's words, why dir cannot be a live run's repository:
// it is not a git repository, or it has no commit yet. A run checks this before it asks
// any model anything.
func CheckRepository(dir string) error {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return fmt.Errorf("%s is not a git repository: run the command inside one, or point --repo at one (git init, then commit the code the spec is about)", dir)
	}
	if err != nil {
		return fmt.Errorf("%s: the git repository cannot be read: %w", dir, err)
	}
	if _, err := repo.Head(); err != nil {
		return fmt.Errorf("%s has no commit yet: commit the code the spec is about, which is the run's base revision", dir)
	}
	return nil
}

// headFiles reads the regular files of the commit HEAD points at.
func headFiles(repo *git.Repository, dir string) ([]File, string, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, "", fmt.Errorf("repository %s has no HEAD commit: %w", dir, err)
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, "", fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, "", fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	var files []File
	var total int64
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return nil
		}
		if f.Size > maxRepoFile {
			return fmt.Errorf("%s is larger than %d bytes", f.Name, maxRepoFile)
		}
		if total += f.Size; total > maxRepoBytes || len(files) >= maxRepoFiles {
			return fmt.Errorf("the tree is larger than %d bytes or %d files", maxRepoBytes, maxRepoFiles)
		}
		content, err := f.Contents()
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Name, err)
		}
		files = append(files, File{Path: f.Name, Content: []byte(content), Executable: f.Mode == filemode.Executable})
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("read HEAD of %s: %w", dir, err)
	}
	return files, head.Hash().String(), nil
}
