package gitstate

import (
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
