package ghtest

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIssueComments(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	s.State.AddIssue("o", "r", 7, "Add a flag", "please")

	is, _, err := c.Issues.Get(ctx, "o", "r", 7)
	require.NoError(t, err)
	assert.Equal(t, "Add a flag", is.GetTitle())

	cm, _, err := c.Issues.CreateComment(ctx, "o", "r", 7, &github.IssueComment{Body: github.String("working")})
	require.NoError(t, err)
	_, _, err = c.Issues.EditComment(ctx, "o", "r", cm.GetID(), &github.IssueComment{Body: github.String("done")})
	require.NoError(t, err)
	got, _, err := c.Issues.GetComment(ctx, "o", "r", cm.GetID())
	require.NoError(t, err)
	assert.Equal(t, "done", got.GetBody())
	list, _, err := c.Issues.ListComments(ctx, "o", "r", 7, nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, []string{"done"}, s.State.Comments("o", "r", 7))

	reqs := s.Requests()
	assert.Equal(t, "POST", reqs[1].Method)
	assert.Equal(t, "repos/o/r/issues/7/comments", reqs[1].Path)
	assert.JSONEq(t, `{"body":"working"}`, string(reqs[1].Body))

	_, _, err = c.Issues.Get(ctx, "o", "r", 8)
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusNotFound, er.Response.StatusCode)
}

func TestRepoAndContents(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	s.State.SetFile("o", "r", "", ".github/dixit.yml", "version: 1\n")

	repo, _, err := c.Repositories.Get(ctx, "o", "r")
	require.NoError(t, err)
	assert.Equal(t, "main", repo.GetDefaultBranch())
	assert.Equal(t, "o/r", repo.GetFullName())

	f, _, _, err := c.Repositories.GetContents(ctx, "o", "r", ".github/dixit.yml", &github.RepositoryContentGetOptions{Ref: "main"})
	require.NoError(t, err)
	body, err := f.GetContent()
	require.NoError(t, err)
	assert.Equal(t, "version: 1\n", body)

	_, _, _, err = c.Repositories.GetContents(ctx, "o", "r", ".github/dixit.yml", &github.RepositoryContentGetOptions{Ref: "pr"})
	require.Error(t, err)

	s.State.SetPermission("o", "r", "alice", "write")
	p, _, err := c.Repositories.GetPermissionLevel(ctx, "o", "r", "alice")
	require.NoError(t, err)
	assert.Equal(t, "write", p.GetPermission())
}

func TestCheckRuns(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	cr, _, err := c.Checks.CreateCheckRun(ctx, "o", "r", github.CreateCheckRunOptions{
		Name: "dixit", HeadSHA: "abc123", Status: github.String("in_progress"),
	})
	require.NoError(t, err)
	assert.Equal(t, "in_progress", cr.GetStatus())
	up, _, err := c.Checks.UpdateCheckRun(ctx, "o", "r", cr.GetID(), github.UpdateCheckRunOptions{
		Name: "dixit", Conclusion: github.String("success"),
		Output: &github.CheckRunOutput{Title: github.String("3/3"), Summary: github.String("all pass")},
	})
	require.NoError(t, err)
	assert.Equal(t, "completed", up.GetStatus())
	assert.Equal(t, "success", up.GetConclusion())
	assert.Equal(t, "all pass", up.GetOutput().GetSummary())
}

func TestPulls(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	pr, _, err := c.PullRequests.Create(ctx, "o", "r", &github.NewPullRequest{
		Title: github.String("Escalate"), Head: github.String("dixit/issue-7"), Base: github.String("main"),
	})
	require.NoError(t, err)
	assert.Equal(t, 1, pr.GetNumber())
	list, _, err := c.PullRequests.List(ctx, "o", "r", &github.PullRequestListOptions{Head: "dixit/issue-7"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	_, _, err = c.PullRequests.Edit(ctx, "o", "r", 1, &github.PullRequest{State: github.String("closed")})
	require.NoError(t, err)
	list, _, err = c.PullRequests.List(ctx, "o", "r", nil)
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestAppEndpoints(t *testing.T) {
	s := NewServer(t)
	ctx := t.Context()
	tc := s.Client(&http.Client{Transport: bearer{"a.jwt.token"}})
	s.State.AddDelivery(Delivery{GUID: "guid-1", Event: "issue_comment", Action: "created", StatusCode: 202})
	ds, _, err := tc.Apps.ListHookDeliveries(ctx, nil)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "guid-1", ds[0].GetGUID())
	assert.Equal(t, "OK", ds[0].GetStatus())

	tok, _, err := tc.Apps.CreateInstallationToken(ctx, 42, &github.InstallationTokenOptions{})
	require.NoError(t, err)
	assert.Equal(t, "ghs_fake_42_1", tok.GetToken())
	assert.Equal(t, "Bearer a.jwt.token", s.State.Tokens()[0].Authorization)
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// recorder is a testing.TB that keeps errors instead of failing the test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestValidatorCatchesWrongResponseShape(t *testing.T) {
	rec := &recorder{TB: t}
	s := NewServer(rec)
	s.Handle("GET repos/{owner}/{repo}/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, obj{"id": "not-a-number", "body": 3})
	})
	_, _, _ = s.Client(nil).Issues.GetComment(t.Context(), "o", "r", 1)
	require.NotEmpty(t, rec.errs)
	assert.Contains(t, rec.errs[0], "does not match GitHub's description")
}

func TestValidatorCatchesUndocumentedRequest(t *testing.T) {
	rec := &recorder{TB: t}
	s := NewServer(rec)
	_, _ = s.Client(nil).Issues.Lock(t.Context(), "o", "r", 1, nil)
	require.NotEmpty(t, rec.errs)
	assert.Contains(t, rec.errs[0], "not in GitHub's description")
}
