package gitstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// FetchHead fetches the tip of branch from a remote repository over HTTPS and returns
// its files and commit. token is sent as GitHub expects an installation token; only the
// one commit is fetched.
func FetchHead(ctx context.Context, url, branch, token string) ([]File, string, error) {
	opts := &git.CloneOptions{
		URL: url, Depth: 1, SingleBranch: true, Tags: git.NoTags,
		ReferenceName: plumbing.NewBranchReferenceName(branch),
	}
	if token != "" {
		opts.Auth = &http.BasicAuth{Username: "x-access-token", Password: token}
	}
	repo, err := git.CloneContext(ctx, memory.NewStorage(), nil, opts)
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s of %s: %w", branch, url, err)
	}
	return headFiles(repo, url)
}

// Push sends refs of the workshop to a remote repository: each refspec maps a local ref
// to a remote one ("refs/dixit/r/coders/amber:refs/heads/dixit/7/amber"). A leading "+"
// allows a non-fast-forward update, as after a rollback.
func (w *Workshop) Push(ctx context.Context, url, token string, refspecs ...string) error {
	specs := make([]config.RefSpec, len(refspecs))
	for i, s := range refspecs {
		specs[i] = config.RefSpec(s)
		if err := specs[i].Validate(); err != nil {
			return fmt.Errorf("push %s: %w", s, err)
		}
	}
	opts := &git.PushOptions{RemoteName: "dixit", RefSpecs: specs}
	if token != "" {
		opts.Auth = &http.BasicAuth{Username: "x-access-token", Password: token}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// An anonymous remote: the workshop keeps no remotes (and so no stored URLs or tokens).
	remote := git.NewRemote(w.repo.Storer, &config.RemoteConfig{Name: "dixit", URLs: []string{url}})
	err := remote.PushContext(ctx, opts)
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("push to %s: %w", url, err)
	}
	return nil
}
