package ghreport

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// ReviewMarker starts the body of the review that vets pull request number; it finds the
// review again after a restart, on every server.
func ReviewMarker(number int) string { return fmt.Sprintf("<!-- dixit:vet pr=%d -->", number) }

// reviewLimit keeps a review body under GitHub's 65,536 characters.
const reviewLimit = 65_000

// Review posts the verdict on a pull request as one review, and edits that same review
// when the verdict changes (a new head was judged). The review is a comment, never an
// approval or a request for changes: the check run carries the verdict, and a team's
// branch protection decides whether it blocks a merge. The existing review is looked up
// by its marker before one is created, so neither a restart nor an answer GitHub lost
// adds a second one. It returns the review's id.
func Review(ctx context.Context, gh *github.Client, owner, repo string, number int, commit, body string) (int64, error) {
	body = cut(ReviewMarker(number)+"\n"+body, reviewLimit)
	id, err := findReview(ctx, gh, owner, repo, number)
	if err != nil {
		return 0, err
	}
	if id != 0 {
		if _, _, err := gh.PullRequests.UpdateReview(ctx, owner, repo, number, id, body); err != nil {
			return 0, fmt.Errorf("edit the review of %s/%s#%d: %w", owner, repo, number, err)
		}
		return id, nil
	}
	r, _, err := gh.PullRequests.CreateReview(ctx, owner, repo, number, &github.PullRequestReviewRequest{
		CommitID: github.String(commit), Body: github.String(body), Event: github.String("COMMENT"),
	})
	if err != nil {
		return 0, fmt.Errorf("review %s/%s#%d: %w", owner, repo, number, err)
	}
	return r.GetID(), nil
}

// findReview returns the id of the pull request's vetting review, or 0.
func findReview(ctx context.Context, gh *github.Client, owner, repo string, number int) (int64, error) {
	marker := ReviewMarker(number)
	opts := &github.ListOptions{PerPage: 100}
	for {
		reviews, resp, err := gh.PullRequests.ListReviews(ctx, owner, repo, number, opts)
		if err != nil {
			return 0, fmt.Errorf("list the reviews of %s/%s#%d: %w", owner, repo, number, err)
		}
		for _, r := range reviews {
			if strings.HasPrefix(r.GetBody(), marker) {
				return r.GetID(), nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
}
