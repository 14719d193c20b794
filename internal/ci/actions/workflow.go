package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/dixit-bot/dixit/internal/ci/classify"
)

// InstallWorkflow makes branch of the workshop repository at url hold the current
// classify.Workflow at classify.WorkflowPath: it fetches the branch's tip, and if the
// file is missing or differs, commits it on top and pushes (never forcing). An empty
// repository gets a first commit holding only the workflow. It reports whether it
// pushed.
//
// On GitHub, a push that creates or changes a file under .github/workflows needs the
// App's `workflows: write` permission, which deploy/app.yml does not ask for: without
// it GitHub refuses the push, and the error says to add the permission or to commit the
// file by hand (docs/actions.md).
func InstallWorkflow(ctx context.Context, url, branch, token string) (bool, error) {
	auth := &http.BasicAuth{Username: "x-access-token", Password: token}
	repo, err := git.CloneContext(ctx, memory.NewStorage(), nil, &git.CloneOptions{
		URL: url, Auth: auth, Depth: 1, SingleBranch: true, Tags: git.NoTags,
		ReferenceName: plumbing.NewBranchReferenceName(branch),
	})
	var parent *object.Commit
	switch {
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		repo, err = git.Init(memory.NewStorage(), nil)
		if err != nil {
			return false, fmt.Errorf("install the workflow: %w", err)
		}
	case err != nil:
		return false, fmt.Errorf("install the workflow: fetch %s of %s: %w", branch, url, err)
	default:
		head, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
		if err != nil {
			return false, fmt.Errorf("install the workflow: %s of %s: %w", branch, url, err)
		}
		if parent, err = repo.CommitObject(head.Hash()); err != nil {
			return false, fmt.Errorf("install the workflow: %w", err)
		}
		if f, err := parent.File(classify.WorkflowPath); err == nil {
			if content, err := f.Contents(); err == nil && content == string(classify.Workflow) {
				return false, nil
			}
		}
	}
	commit, err := commitWorkflow(repo, parent)
	if err != nil {
		return false, fmt.Errorf("install the workflow: %w", err)
	}
	local := plumbing.ReferenceName("refs/dixit-install/" + branch)
	if err := repo.Storer.SetReference(plumbing.NewHashReference(local, commit)); err != nil {
		return false, fmt.Errorf("install the workflow: %w", err)
	}
	remote, err := repo.CreateRemote(&config.RemoteConfig{Name: "workshop", URLs: []string{url}})
	if err != nil {
		return false, fmt.Errorf("install the workflow: %w", err)
	}
	err = remote.PushContext(ctx, &git.PushOptions{RemoteName: "workshop", Auth: auth,
		RefSpecs: []config.RefSpec{config.RefSpec(local.String() + ":" + plumbing.NewBranchReferenceName(branch).String())}})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		msg := err.Error()
		if strings.Contains(msg, "workflow") && strings.Contains(msg, "permission") {
			return false, fmt.Errorf("install the workflow: GitHub refused to let the App write %s: it needs the `workflows: write` permission, or commit internal/ci/classify/workflow/%s to %s of the workshop by hand: %w",
				classify.WorkflowPath, WorkflowFile, branch, err)
		}
		return false, fmt.Errorf("install the workflow: push to %s of %s: %w", branch, url, err)
	}
	return true, nil
}

// commitWorkflow writes the parent's tree with the workflow file put in place, as a
// commit on top of parent (nil: a first commit).
func commitWorkflow(repo *git.Repository, parent *object.Commit) (plumbing.Hash, error) {
	blob := repo.Storer.NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	w, err := blob.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(classify.Workflow); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	blobHash, err := repo.Storer.SetEncodedObject(blob)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var root *object.Tree
	if parent != nil {
		if root, err = parent.Tree(); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	treeHash, err := putPath(repo, root, strings.Split(classify.WorkflowPath, "/"), blobHash)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := object.Signature{Name: "dixit", Email: "dixit@localhost", When: time.Now().UTC()}
	c := &object.Commit{Author: sig, Committer: sig, TreeHash: treeHash,
		Message: "Dixit: the classification workflow (" + classify.WorkflowPath + ")\n"}
	if parent != nil {
		c.ParentHashes = []plumbing.Hash{parent.Hash}
	}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return repo.Storer.SetEncodedObject(obj)
}

// putPath returns the hash of tree (nil: empty) with the file at parts set to blob.
func putPath(repo *git.Repository, tree *object.Tree, parts []string, blob plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if tree != nil {
		entries = append(entries, tree.Entries...)
	}
	name := parts[0]
	entry := object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob}
	if len(parts) > 1 {
		var sub *object.Tree
		for _, e := range entries {
			if e.Name == name && e.Mode == filemode.Dir {
				s, err := repo.TreeObject(e.Hash)
				if err != nil {
					return plumbing.ZeroHash, err
				}
				sub = s
			}
		}
		h, err := putPath(repo, sub, parts[1:], blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entry = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Name != name {
			kept = append(kept, e)
		}
	}
	kept = append(kept, entry)
	// git orders entries by name, a directory's name compared as if it ended in "/".
	sortEntries(kept)
	obj := repo.Storer.NewEncodedObject()
	if err := (&object.Tree{Entries: kept}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return repo.Storer.SetEncodedObject(obj)
}

func sortEntries(es []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	for i := 1; i < len(es); i++ {
		for k := i; k > 0 && key(es[k]) < key(es[k-1]); k-- {
			es[k], es[k-1] = es[k-1], es[k]
		}
	}
}
