package ghtest

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type tokenAuth struct{ token string }

func (a tokenAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

// installationClient fetches a token for inst with the App's JWT, as ghinstallation does.
func installationClient(t *testing.T, s *Server, inst int64) *github.Client {
	t.Helper()
	tok, _, err := s.Client(&http.Client{Transport: bearer{"a.jwt.token"}}).Apps.CreateInstallationToken(t.Context(), inst, &github.InstallationTokenOptions{})
	require.NoError(t, err)
	return s.Client(&http.Client{Transport: tokenAuth{tok.GetToken()}})
}

func status(t *testing.T, err error) int {
	t.Helper()
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	return er.Response.StatusCode
}

func TestInstallationsAndTheirRepositories(t *testing.T) {
	s := NewServer(t)
	ctx := t.Context()
	s.State.AddInstallation(1, "acme")
	s.State.AddInstallation(2, "globex")
	for _, name := range []string{"a", "b", "c"} {
		s.State.AddRepo("acme", name, name == "b", 1)
	}
	s.State.AddRepo("globex", "g", false, 2)
	app := s.Client(&http.Client{Transport: bearer{"a.jwt.token"}})

	ins, resp, err := app.Apps.ListInstallations(ctx, &github.ListOptions{PerPage: 1})
	require.NoError(t, err)
	require.Len(t, ins, 1)
	assert.EqualValues(t, 1, ins[0].GetID())
	assert.Equal(t, "acme", ins[0].GetAccount().GetLogin())
	assert.Equal(t, 2, resp.NextPage)
	assert.Equal(t, 2, resp.LastPage)
	ins, resp, err = app.Apps.ListInstallations(ctx, &github.ListOptions{PerPage: 1, Page: 2})
	require.NoError(t, err)
	assert.EqualValues(t, 2, ins[0].GetID())
	assert.Zero(t, resp.NextPage)
	assert.Equal(t, 1, resp.PrevPage)

	_, _, err = s.Client(nil).Apps.ListInstallations(ctx, nil)
	assert.Equal(t, http.StatusUnauthorized, status(t, err), "app endpoints need the JWT")

	acme := installationClient(t, s, 1)
	page1, resp, err := acme.Apps.ListRepos(ctx, &github.ListOptions{PerPage: 2})
	require.NoError(t, err)
	assert.Equal(t, 3, page1.GetTotalCount())
	require.Len(t, page1.Repositories, 2)
	assert.Equal(t, "acme/a", page1.Repositories[0].GetFullName())
	assert.True(t, page1.Repositories[1].GetPrivate())
	assert.Equal(t, "private", page1.Repositories[1].GetVisibility())
	assert.Equal(t, 2, resp.NextPage)
	page2, resp, err := acme.Apps.ListRepos(ctx, &github.ListOptions{PerPage: 2, Page: 2})
	require.NoError(t, err)
	require.Len(t, page2.Repositories, 1)
	assert.Equal(t, "acme/c", page2.Repositories[0].GetFullName())
	assert.Zero(t, resp.NextPage)

	globex, _, err := installationClient(t, s, 2).Apps.ListRepos(ctx, nil)
	require.NoError(t, err)
	require.Len(t, globex.Repositories, 1)
	assert.Equal(t, "globex/g", globex.Repositories[0].GetFullName())

	all, _, err := s.Client(&http.Client{Transport: tokenAuth{"some-other-token"}}).Apps.ListRepos(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 4, all.GetTotalCount(), "a token the fake did not issue sees every repository")

	_, _, err = s.Client(nil).Apps.ListRepos(ctx, nil)
	assert.Equal(t, http.StatusUnauthorized, status(t, err), "installation endpoints need a token")
}

func TestListIssuesFiltersAndPaginates(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()
	st := s.State
	st.AddIssue("o", "r", 1, "one", "")
	st.AddLabel("o", "r", 1, "dixit")
	st.AddIssue("o", "r", 2, "two", "")
	st.AddLabel("o", "r", 2, "DIXIT")
	st.AddLabel("o", "r", 2, "bug")
	st.AddIssue("o", "r", 3, "unlabelled", "")
	st.AddIssue("o", "r", 4, "closed", "")
	st.AddLabel("o", "r", 4, "dixit")
	st.CloseIssue("o", "r", 4)
	st.AddPullRequestIssue("o", "r", 5, "a pull request")
	st.AddLabel("o", "r", 5, "dixit")
	st.AddIssue("o", "other", 1, "elsewhere", "")
	st.AddLabel("o", "other", 1, "dixit")

	numbers := func(opts *github.IssueListByRepoOptions) []int {
		t.Helper()
		list, _, err := c.Issues.ListByRepo(ctx, "o", "r", opts)
		require.NoError(t, err)
		var ns []int
		for _, is := range list {
			ns = append(ns, is.GetNumber())
		}
		return ns
	}
	assert.Equal(t, []int{5, 3, 2, 1}, numbers(nil), "open by default, newest first, pull requests included")
	assert.Equal(t, []int{5, 2, 1}, numbers(&github.IssueListByRepoOptions{Labels: []string{"Dixit"}}))
	assert.Equal(t, []int{2}, numbers(&github.IssueListByRepoOptions{Labels: []string{"dixit", "bug"}}), "every label must match")
	assert.Equal(t, []int{4}, numbers(&github.IssueListByRepoOptions{State: "closed"}))
	assert.Equal(t, []int{5, 4, 3, 2, 1}, numbers(&github.IssueListByRepoOptions{State: "all"}))
	assert.Equal(t, []int{1, 2, 3, 5}, numbers(&github.IssueListByRepoOptions{Direction: "asc"}))

	list, _, err := c.Issues.ListByRepo(ctx, "o", "r", &github.IssueListByRepoOptions{Labels: []string{"dixit"}})
	require.NoError(t, err)
	assert.True(t, list[0].IsPullRequest())
	assert.False(t, list[1].IsPullRequest())
	assert.Equal(t, "DIXIT", list[1].Labels[0].GetName())

	page, resp, err := c.Issues.ListByRepo(ctx, "o", "r", &github.IssueListByRepoOptions{ListOptions: github.ListOptions{PerPage: 3}})
	require.NoError(t, err)
	assert.Len(t, page, 3)
	assert.Equal(t, 2, resp.NextPage)
	assert.Equal(t, 2, resp.LastPage)
	assert.Contains(t, resp.Header.Get("Link"), "per_page=3")
	page, resp, err = c.Issues.ListByRepo(ctx, "o", "r", &github.IssueListByRepoOptions{ListOptions: github.ListOptions{PerPage: 3, Page: 2}})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, 1, page[0].GetNumber())
	assert.Zero(t, resp.NextPage)
	assert.Equal(t, 1, resp.FirstPage)

	_, _, err = c.Issues.ListByRepo(ctx, "o", "missing", nil)
	assert.Equal(t, http.StatusNotFound, status(t, err))
}

func TestRepositoriesAreKnownOrNotFound(t *testing.T) {
	s := NewServer(t)
	c := s.Client(nil)
	ctx := t.Context()

	r, _, err := c.Repositories.Get(ctx, "any", "thing")
	require.NoError(t, err, "a fake with no repositories at all answers for any name")
	assert.Equal(t, "any/thing", r.GetFullName())

	s.State.AddRepo("acme", "secret", true, 1)
	s.State.SetFile("o", "r", "", "README.md", "hi")
	r, _, err = c.Repositories.Get(ctx, "acme", "secret")
	require.NoError(t, err)
	assert.True(t, r.GetPrivate())
	assert.Equal(t, "private", r.GetVisibility())
	r, _, err = c.Repositories.Get(ctx, "O", "R")
	require.NoError(t, err, "names are case-insensitive, as on GitHub")
	assert.False(t, r.GetPrivate())
	assert.Equal(t, "public", r.GetVisibility())

	_, _, err = c.Repositories.Get(ctx, "any", "thing")
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusNotFound, er.Response.StatusCode)
	assert.Equal(t, "Not Found", er.Message)
	assert.NotEmpty(t, er.DocumentationURL)
	exists, _ := s.State.Repo("any", "thing")
	assert.False(t, exists)
}

func TestCreateOrgRepo(t *testing.T) {
	s := NewServer(t)
	ctx := t.Context()
	s.State.AddInstallation(7, "acme")
	c := installationClient(t, s, 7)
	want := &github.Repository{Name: github.String("r-dixit"), Visibility: github.String("private")}

	_, _, err := c.Repositories.Create(ctx, "acme", want)
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusForbidden, er.Response.StatusCode)
	assert.Equal(t, "Resource not accessible by integration", er.Message)

	s.State.AllowRepoCreation("acme")
	r, resp, err := c.Repositories.Create(ctx, "acme", want)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "acme/r-dixit", r.GetFullName())
	assert.True(t, r.GetPrivate())
	assert.Equal(t, "private", r.GetVisibility())
	assert.Equal(t, s.URL+"repos/acme/r-dixit", resp.Header.Get("Location"))
	exists, private := s.State.Repo("acme", "r-dixit")
	assert.True(t, exists)
	assert.True(t, private)
	list, _, err := c.Apps.ListRepos(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Repositories, 1, "the installation that created it can see it")

	pub, _, err := c.Repositories.Create(ctx, "acme", &github.Repository{Name: github.String("open"), Private: github.Bool(false)})
	require.NoError(t, err)
	assert.False(t, pub.GetPrivate())
	assert.Equal(t, "public", pub.GetVisibility())

	_, _, err = c.Repositories.Create(ctx, "acme", want)
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
	require.Len(t, er.Errors, 1)
	assert.Equal(t, "name already exists on this account", er.Errors[0].Message)

	_, _, err = s.Client(nil).Repositories.Create(ctx, "acme", &github.Repository{Name: github.String("x")})
	assert.Equal(t, http.StatusUnauthorized, status(t, err))
}

func TestDeliveriesCursorAndRedelivery(t *testing.T) {
	s := NewServer(t)
	ctx := t.Context()
	app := s.Client(&http.Client{Transport: bearer{"a.jwt.token"}})
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	var ids []int64
	for i, code := range []int{200, 503, 0, 202, 500} {
		ids = append(ids, s.State.AddDelivery(Delivery{
			GUID: "guid-" + string(rune('a'+i)), Event: "issues", Action: "labeled", StatusCode: code,
			DeliveredAt: base.Add(time.Duration(i) * time.Minute), InstallationID: 1, RepositoryID: 9,
		}))
	}

	var guids, statuses []string
	opts := &github.ListCursorOptions{PerPage: 2}
	pages := 0
	for {
		ds, resp, err := app.Apps.ListHookDeliveries(ctx, opts)
		require.NoError(t, err)
		pages++
		for _, d := range ds {
			guids = append(guids, d.GetGUID())
			statuses = append(statuses, d.GetStatus())
		}
		if resp.Cursor == "" {
			break
		}
		opts.Cursor = resp.Cursor
	}
	assert.Equal(t, 3, pages)
	assert.Equal(t, []string{"guid-e", "guid-d", "guid-c", "guid-b", "guid-a"}, guids, "newest first")
	assert.Equal(t, []string{"Invalid HTTP Response: 500", "OK", "Timed out", "Invalid HTTP Response: 503", "OK"}, statuses)

	_, _, err := s.Client(nil).Apps.ListHookDeliveries(ctx, nil)
	assert.Equal(t, http.StatusUnauthorized, status(t, err))

	// go-github reports GitHub's 202 as an *AcceptedError.
	var accepted *github.AcceptedError
	_, resp, err := app.Apps.RedeliverHookDelivery(ctx, ids[1])
	require.ErrorAs(t, err, &accepted)
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	s.State.SetRedeliveryStatus(200)
	_, _, err = app.Apps.RedeliverHookDelivery(ctx, ids[4])
	require.ErrorAs(t, err, &accepted)
	assert.Equal(t, []int64{ids[1], ids[4]}, s.State.Redeliveries())

	ds, _, err := app.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: 2})
	require.NoError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, "guid-e", ds[0].GetGUID())
	assert.True(t, ds[0].GetRedelivery())
	assert.Equal(t, 200, ds[0].GetStatusCode(), "SetRedeliveryStatus applies")
	assert.Equal(t, "guid-b", ds[1].GetGUID())
	assert.True(t, ds[1].GetRedelivery())
	assert.Equal(t, 503, ds[1].GetStatusCode(), "by default an attempt fares as the original did")
	assert.EqualValues(t, 1, ds[1].GetInstallationID())

	_, _, err = s.Client(nil).Apps.RedeliverHookDelivery(ctx, ids[0])
	assert.Equal(t, http.StatusUnauthorized, status(t, err))
}

func TestCheckRunsOfACommit(t *testing.T) {
	s := NewServer(t)
	ctx := t.Context()
	s.State.AddRepo("acme", "svc", false, 1)
	gh := installationClient(t, s, 1)
	sha, other := "6dcb09b5b57875f334f61aebed695e2e4193db5e", "d6fde92930d4715a2b49857d24b940956b26d2d3"
	for _, c := range []struct{ name, sha, ext string }{{"Dixit", sha, "run-1"}, {"lint", sha, ""}, {"Dixit", other, "run-2"}} {
		_, _, err := gh.Checks.CreateCheckRun(ctx, "acme", "svc", github.CreateCheckRunOptions{Name: c.name, HeadSHA: c.sha, ExternalID: github.String(c.ext)})
		require.NoError(t, err)
	}
	res, _, err := gh.Checks.ListCheckRunsForRef(ctx, "acme", "svc", sha, &github.ListCheckRunsOptions{CheckName: github.String("Dixit")})
	require.NoError(t, err)
	require.Equal(t, 1, res.GetTotal())
	assert.Equal(t, "run-1", res.CheckRuns[0].GetExternalID())
	all, _, err := gh.Checks.ListCheckRunsForRef(ctx, "acme", "svc", sha, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, all.GetTotal())
}

func TestAPrivateRepositoryOutsideTheInstallationIsNotFound(t *testing.T) {
	s := NewServer(t)
	s.State.AddRepo("acme", "secret", true, 2)
	_, _, err := installationClient(t, s, 1).Repositories.Get(t.Context(), "acme", "secret")
	assert.Equal(t, http.StatusNotFound, status(t, err))
	repo, _, err := installationClient(t, s, 2).Repositories.Get(t.Context(), "acme", "secret")
	require.NoError(t, err)
	assert.True(t, repo.GetPrivate())
}
