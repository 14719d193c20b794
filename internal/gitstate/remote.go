package gitstate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// FetchHead fetches the tip of branch from a remote repository over HTTPS and returns
// its files and commit. token is sent as GitHub expects an installation token; only the
// one commit is fetched. A branch given as a full ref ("refs/pull/7/head", GitHub's ref
// for a pull request's head, forks included) is fetched as it is.
func FetchHead(ctx context.Context, url, branch, token string) ([]File, string, error) {
	var auth *http.BasicAuth
	if token != "" {
		auth = &http.BasicAuth{Username: "x-access-token", Password: token}
	}
	if strings.HasPrefix(branch, "refs/") {
		return fetchRef(ctx, url, plumbing.ReferenceName(branch), auth)
	}
	opts := &git.CloneOptions{
		URL: url, Depth: 1, SingleBranch: true, Tags: git.NoTags,
		ReferenceName: plumbing.NewBranchReferenceName(branch),
	}
	if auth != nil { // not a nil *BasicAuth in the interface
		opts.Auth = auth
	}
	repo, err := git.CloneContext(ctx, memory.NewStorage(), nil, opts)
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s of %s: %w", branch, url, err)
	}
	return headFiles(repo, url)
}

// fetchRef fetches one ref that is not a branch (clone only takes branches and tags),
// making it the HEAD of an in-memory repository.
func fetchRef(ctx context.Context, url string, ref plumbing.ReferenceName, auth *http.BasicAuth) ([]File, string, error) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return nil, "", err
	}
	remote := git.NewRemote(repo.Storer, &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	local := plumbing.NewBranchReferenceName("fetched")
	opts := &git.FetchOptions{RemoteName: "origin", Depth: 1, Tags: git.NoTags,
		RefSpecs: []config.RefSpec{config.RefSpec("+" + ref.String() + ":" + local.String())}}
	if auth != nil {
		opts.Auth = auth
	}
	if err := remote.FetchContext(ctx, opts); err != nil {
		return nil, "", fmt.Errorf("fetch %s of %s: %w", ref, url, err)
	}
	if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, local)); err != nil {
		return nil, "", fmt.Errorf("fetch %s of %s: %w", ref, url, err)
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
