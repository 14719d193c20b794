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

// PullRef names a pull request.
type PullRef struct {
	Owner, Repo string
	Number      int
}

// Review posts the verdict on a pull request as one review, and edits that same review
// when the verdict changes (a new head was judged). The review is a comment, never an
// approval or a request for changes: the check run carries the verdict, and a team's
// branch protection decides whether it blocks a merge. The existing review is looked up
// by its marker before one is created, so neither a restart nor an answer GitHub lost
// adds a second one. It returns the review's id.
func Review(ctx context.Context, gh *github.Client, pr PullRef, body string) (int64, error) {
	owner, repo, number := pr.Owner, pr.Repo, pr.Number
	body = cut(ReviewMarker(number)+"\n"+body, reviewLimit)
	id, _, err := findReview(ctx, gh, owner, repo, number)
	if err != nil {
		return 0, err
	}
	if id != 0 {
		_, resp, err := gh.PullRequests.UpdateReview(ctx, owner, repo, number, id, body)
		if err == nil {
			return id, nil
		}
		// Not ours to edit after all (a marker copied into someone else's review), or
		// gone: post a review of our own instead.
		if resp == nil || resp.StatusCode < 400 || resp.StatusCode >= 500 {
			return 0, fmt.Errorf("edit the review of %s/%s#%d: %w", owner, repo, number, err)
		}
	}
	// No commit id: GitHub takes the head, and a head force-pushed away since it was
	// judged would make it refuse the review. The body names the commit judged.
	r, _, err := gh.PullRequests.CreateReview(ctx, owner, repo, number, &github.PullRequestReviewRequest{
		Body: github.String(body), Event: github.String("COMMENT"),
	})
	if err != nil {
		return 0, fmt.Errorf("review %s/%s#%d: %w", owner, repo, number, err)
	}
	return r.GetID(), nil
}

// PreviousReview returns the body of the pull request's vetting review, "" if none.
func PreviousReview(ctx context.Context, gh *github.Client, pr PullRef) (string, error) {
	_, body, err := findReview(ctx, gh, pr.Owner, pr.Repo, pr.Number)
	return body, err
}

// findReview returns the newest review of the pull request that a bot wrote with the
// vetting marker, and its body; 0 if none. Reviews by people never count, whatever
// they hold.
func findReview(ctx context.Context, gh *github.Client, owner, repo string, number int) (int64, string, error) {
	marker := ReviewMarker(number)
	opts := &github.ListOptions{PerPage: 100}
	var id int64
	var body string
	for {
		reviews, resp, err := gh.PullRequests.ListReviews(ctx, owner, repo, number, opts)
		if err != nil {
			return 0, "", fmt.Errorf("list the reviews of %s/%s#%d: %w", owner, repo, number, err)
		}
		for _, r := range reviews {
			if r.GetUser().GetType() == "Bot" && strings.HasPrefix(r.GetBody(), marker) {
				id, body = r.GetID(), r.GetBody()
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return id, body, nil
		}
		opts.Page = resp.NextPage
	}
}
