package gitstate

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxRepoFile bounds one file read from a user's repository.
const maxRepoFile = 32 << 20

// ReadHead returns the files of the commit HEAD points at in the repository at dir, and
// that commit. Only committed content counts: a run is pinned to a revision, not to
// whatever the working tree holds. Symbolic links and submodules are skipped.
func ReadHead(dir string) ([]File, string, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, "", fmt.Errorf("open repository %s: %w", dir, err)
	}
	return headFiles(repo, dir)
}

// ReadRevision reads the regular files of a revision (a branch, tag or commit) of the
// repository at dir, and the commit it names.
func ReadRevision(dir, rev string) ([]File, string, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, "", fmt.Errorf("open repository %s: %w", dir, err)
	}
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, "", fmt.Errorf("%s has no revision %q: %w", dir, rev, err)
	}
	return commitFiles(repo, *h, rev)
}

// headFiles reads the regular files of the commit HEAD points at.
func headFiles(repo *git.Repository, dir string) ([]File, string, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, "", fmt.Errorf("repository %s has no HEAD commit: %w", dir, err)
	}
	return commitFiles(repo, head.Hash(), "HEAD of "+dir)
}

// commitFiles reads the regular files of a commit; name says which, for errors.
func commitFiles(repo *git.Repository, h plumbing.Hash, name string) ([]File, string, error) {
	commit, err := repo.CommitObject(h)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", name, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", name, err)
	}
	var files []File
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return nil
		}
		if f.Size > maxRepoFile {
			return fmt.Errorf("%s is larger than %d bytes", f.Name, maxRepoFile)
		}
		content, err := f.Contents()
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Name, err)
		}
		files = append(files, File{Path: f.Name, Content: []byte(content), Executable: f.Mode == filemode.Executable})
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", name, err)
	}
	return files, h.String(), nil
}
