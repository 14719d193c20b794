package ghreport

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// PR is the escalation pull request.
type PR struct {
	Title, Body string
	Head, Base  string // branch names in the target repository
}

// Find returns the number of the open pull request from branch head, or 0.
func Find(ctx context.Context, gh *github.Client, owner, repo, head string) (int, error) {
	open, _, err := gh.PullRequests.List(ctx, owner, repo, &github.PullRequestListOptions{State: "open", Head: owner + ":" + head})
	if err != nil {
		return 0, fmt.Errorf("list pull requests of %s/%s: %w", owner, repo, err)
	}
	for _, p := range open {
		if p.GetHead().GetRef() == head {
			return p.GetNumber(), nil
		}
	}
	return 0, nil
}

// OpenOrUpdate opens the PR, or updates the one already open from the same branch: a
// run that escalates again never opens a second one. It returns the PR's number.
func OpenOrUpdate(ctx context.Context, gh *github.Client, owner, repo string, pr PR) (int, error) {
	n, err := Find(ctx, gh, owner, repo, pr.Head)
	if err != nil {
		return 0, err
	}
	if n != 0 {
		if _, _, err := gh.PullRequests.Edit(ctx, owner, repo, n, &github.PullRequest{Title: github.String(pr.Title), Body: github.String(pr.Body)}); err != nil {
			return 0, fmt.Errorf("update pull request #%d: %w", n, err)
		}
		return n, nil
	}
	p, _, err := gh.PullRequests.Create(ctx, owner, repo, &github.NewPullRequest{
		Title: github.String(pr.Title), Body: github.String(pr.Body), Head: github.String(pr.Head), Base: github.String(pr.Base),
	})
	if err != nil {
		return 0, fmt.Errorf("open pull request from %s: %w", pr.Head, err)
	}
	return p.GetNumber(), nil
}
