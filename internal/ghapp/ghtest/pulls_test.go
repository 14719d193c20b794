package ghtest

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestACreatedPullIsNumberedAfterIssuesAndIsAnIssue(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	s.State.AddIssue("o", "r", 1, "one", "")
	s.State.AddLabel("o", "r", 1, "dixit")
	s.State.AddPullRequestIssue("o", "r", 2, "seen only as an issue")

	pr, _, err := c.PullRequests.Create(ctx, "o", "r", &github.NewPullRequest{
		Title: github.String("Dixit: one"), Body: github.String("Closes #1"), Head: github.String("dixit/1-pr"), Base: github.String("main"),
	})
	require.NoError(t, err)
	assert.Equal(t, 3, pr.GetNumber(), "issues and pull requests share one sequence")
	assert.Equal(t, BotLogin, pr.GetUser().GetLogin())
	assert.Equal(t, "Bot", pr.GetUser().GetType())
	assert.Equal(t, "o:dixit/1-pr", pr.GetHead().GetLabel())
	assert.Equal(t, "o/r", pr.GetBase().GetRepo().GetFullName())

	is, _, err := c.Issues.Get(ctx, "o", "r", 3)
	require.NoError(t, err)
	assert.True(t, is.IsPullRequest())
	assert.Equal(t, "Dixit: one", is.GetTitle())
	assert.Equal(t, "Closes #1", is.GetBody())
	assert.Equal(t, BotLogin, is.GetUser().GetLogin())
	_, _, err = c.Issues.CreateComment(ctx, "o", "r", 3, &github.IssueComment{Body: github.String("vetted")})
	require.NoError(t, err)
	assert.Equal(t, []string{"vetted"}, s.State.Comments("o", "r", 3))

	labelled, _, err := c.Issues.ListByRepo(ctx, "o", "r", &github.IssueListByRepoOptions{Labels: []string{"dixit"}})
	require.NoError(t, err)
	require.Len(t, labelled, 1, "a bot's pull request has no labels")
	assert.Equal(t, 1, labelled[0].GetNumber())
	all, _, err := c.Issues.ListByRepo(ctx, "o", "r", nil)
	require.NoError(t, err)
	assert.Len(t, all, 3)

	got, _, err := c.PullRequests.Get(ctx, "o", "r", 3)
	require.NoError(t, err)
	assert.Equal(t, "dixit/1-pr", got.GetHead().GetRef())
	_, _, err = c.PullRequests.Get(ctx, "o", "r", 1)
	assert.Equal(t, http.StatusNotFound, status(t, err), "an issue is not a pull request")

	_, _, err = c.PullRequests.Edit(ctx, "o", "r", 3, &github.PullRequest{State: github.String("closed"), Title: github.String("Dixit: one (superseded)")})
	require.NoError(t, err)
	is, _, err = c.Issues.Get(ctx, "o", "r", 3)
	require.NoError(t, err)
	assert.Equal(t, "closed", is.GetState(), "closing the pull request closes its issue")
	assert.Equal(t, "Dixit: one (superseded)", is.GetTitle())
	assert.NotNil(t, is.ClosedAt)

	s.State.AddIssue("o", "r", 4, "four", "")
	pr, _, err = c.PullRequests.Create(ctx, "o", "r", &github.NewPullRequest{Title: github.String("next"), Head: github.String("dixit/4-pr"), Base: github.String("main")})
	require.NoError(t, err)
	assert.Equal(t, 5, pr.GetNumber())
	pr, _, err = c.PullRequests.Create(ctx, "o", "elsewhere", &github.NewPullRequest{Title: github.String("first"), Head: github.String("x"), Base: github.String("main")})
	require.NoError(t, err)
	assert.Equal(t, 1, pr.GetNumber(), "each repository has its own sequence")
}

func TestAddPullSetPullHeadAndLabels(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	head, base, pushed := "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"
	s.State.AddPull("acme", "svc", 12, PullSpec{
		Title: "Fix parsing", Body: "Closes #7", User: "agent-amber",
		HeadRef: "amber/fix", HeadSHA: head, BaseRef: "main", BaseSHA: base, Labels: []string{"dixit-vet"},
	})

	pr, _, err := c.PullRequests.Get(ctx, "acme", "svc", 12)
	require.NoError(t, err)
	assert.Equal(t, 12, pr.GetNumber())
	assert.Equal(t, "open", pr.GetState())
	assert.Equal(t, "Fix parsing", pr.GetTitle())
	assert.Equal(t, "Closes #7", pr.GetBody())
	assert.Equal(t, "agent-amber", pr.GetUser().GetLogin())
	assert.Equal(t, "amber/fix", pr.GetHead().GetRef())
	assert.Equal(t, "acme:amber/fix", pr.GetHead().GetLabel())
	assert.Equal(t, head, pr.GetHead().GetSHA())
	assert.Equal(t, "main", pr.GetBase().GetRef())
	assert.Equal(t, base, pr.GetBase().GetSHA())
	assert.Equal(t, "acme/svc", pr.GetHead().GetRepo().GetFullName())
	assert.Equal(t, "acme/svc", pr.GetBase().GetRepo().GetFullName())
	assert.False(t, pr.GetMerged())
	assert.Nil(t, pr.MergedAt)
	require.Len(t, pr.Labels, 1)
	assert.Equal(t, "dixit-vet", pr.Labels[0].GetName())

	s.State.SetPullHead("acme", "svc", 12, pushed)
	s.State.AddLabel("acme", "svc", 12, "bug")
	pr, _, err = c.PullRequests.Get(ctx, "acme", "svc", 12)
	require.NoError(t, err)
	assert.Equal(t, pushed, pr.GetHead().GetSHA())
	assert.Equal(t, base, pr.GetBase().GetSHA())
	var names []string
	for _, l := range pr.Labels {
		names = append(names, l.GetName())
	}
	assert.Equal(t, []string{"dixit-vet", "bug"}, names)

	is, _, err := c.Issues.Get(ctx, "acme", "svc", 12)
	require.NoError(t, err)
	assert.True(t, is.IsPullRequest())
	assert.Equal(t, "agent-amber", is.GetUser().GetLogin())
	assert.Len(t, is.Labels, 2)
	list, _, err := c.Issues.ListByRepo(ctx, "acme", "svc", &github.IssueListByRepoOptions{Labels: []string{"dixit-vet"}})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, 12, list[0].GetNumber())

	next, _, err := c.PullRequests.Create(ctx, "acme", "svc", &github.NewPullRequest{Title: github.String("t"), Head: github.String("h"), Base: github.String("main")})
	require.NoError(t, err)
	assert.Equal(t, 13, next.GetNumber())
}

func TestReviews(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	head, older := "4444444444444444444444444444444444444444", "5555555555555555555555555555555555555555"
	s.State.AddPull("o", "r", 3, PullSpec{Title: "agent's", User: "agent", HeadRef: "agent/x", HeadSHA: head})
	review := func(n int, event, body, commit string) (*github.PullRequestReview, error) {
		t.Helper()
		req := &github.PullRequestReviewRequest{Body: github.String(body)}
		if event != "" {
			req.Event = github.String(event)
		}
		if commit != "" {
			req.CommitID = github.String(commit)
		}
		rv, _, err := c.PullRequests.CreateReview(ctx, "o", "r", n, req)
		return rv, err
	}

	for _, tc := range []struct{ name, event, body, commit, state, wantCommit string }{
		{"approve without a body", "APPROVE", "", "", "APPROVED", head},
		{"request changes", "REQUEST_CHANGES", "the patch breaks test 2", "", "CHANGES_REQUESTED", head},
		{"comment on an older commit", "COMMENT", "report attached", older, "COMMENTED", older},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rv, err := review(3, tc.event, tc.body, tc.commit)
			require.NoError(t, err)
			assert.Equal(t, tc.state, rv.GetState())
			assert.Equal(t, tc.body, rv.GetBody())
			assert.Equal(t, tc.wantCommit, rv.GetCommitID())
			assert.Equal(t, BotLogin, rv.GetUser().GetLogin())
			assert.NotNil(t, rv.SubmittedAt)
		})
	}

	for _, tc := range []struct{ name, event string }{{"comment", "COMMENT"}, {"request changes", "REQUEST_CHANGES"}} {
		t.Run("an empty-bodied "+tc.name+" is refused", func(t *testing.T) {
			_, err := review(3, tc.event, "", "")
			var er *github.ErrorResponse
			require.ErrorAs(t, err, &er)
			assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
		})
	}

	pending, err := review(3, "", "draft", "")
	require.NoError(t, err)
	assert.Equal(t, "PENDING", pending.GetState())
	assert.Nil(t, pending.SubmittedAt, "a pending review is not submitted")
	_, err = review(3, "", "another draft", "")
	assert.Equal(t, http.StatusUnprocessableEntity, status(t, err), "one pending review per user")

	page, resp, err := c.PullRequests.ListReviews(ctx, "o", "r", 3, &github.ListOptions{PerPage: 3})
	require.NoError(t, err)
	require.Len(t, page, 3)
	assert.Equal(t, "APPROVED", page[0].GetState(), "oldest first")
	assert.Equal(t, 2, resp.NextPage)
	page, _, err = c.PullRequests.ListReviews(ctx, "o", "r", 3, &github.ListOptions{PerPage: 3, Page: 2})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, pending.GetID(), page[0].GetID())

	second := s.State.Reviews("o", "r", 3)[1]
	up, _, err := c.PullRequests.UpdateReview(ctx, "o", "r", 3, second.ID, "the patch breaks tests 2 and 5")
	require.NoError(t, err)
	assert.Equal(t, "the patch breaks tests 2 and 5", up.GetBody())
	assert.Equal(t, "CHANGES_REQUESTED", up.GetState())
	assert.Equal(t, []Review{
		{ID: s.State.Reviews("o", "r", 3)[0].ID, State: "APPROVED", CommitID: head, User: BotLogin},
		{ID: second.ID, Body: "the patch breaks tests 2 and 5", State: "CHANGES_REQUESTED", CommitID: head, User: BotLogin},
		{ID: s.State.Reviews("o", "r", 3)[2].ID, Body: "report attached", State: "COMMENTED", CommitID: older, User: BotLogin},
		{ID: pending.GetID(), Body: "draft", State: "PENDING", CommitID: head, User: BotLogin},
	}, s.State.Reviews("o", "r", 3))

	s.State.AddPull("o", "r", 4, PullSpec{Title: "another", User: "agent"})
	_, _, err = c.PullRequests.UpdateReview(ctx, "o", "r", 4, second.ID, "moved")
	assert.Equal(t, http.StatusNotFound, status(t, err), "a review of another pull request")
	_, _, err = c.PullRequests.ListReviews(ctx, "o", "r", 99, nil)
	assert.Equal(t, http.StatusNotFound, status(t, err))
	assert.Empty(t, s.State.Reviews("o", "r", 4))

	own, _, err := c.PullRequests.Create(ctx, "o", "r", &github.NewPullRequest{Title: github.String("bot's"), Head: github.String("dixit/1-pr"), Base: github.String("main")})
	require.NoError(t, err)
	_, err = review(own.GetNumber(), "APPROVE", "", "")
	assert.Equal(t, http.StatusUnprocessableEntity, status(t, err), "nobody approves their own pull request")
	rv, err := review(own.GetNumber(), "COMMENT", "notes", "")
	require.NoError(t, err)
	assert.Equal(t, "COMMENTED", rv.GetState())
}
