package apprun

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
	"github.com/dixit-bot/dixit/internal/repoconfig"
	"github.com/dixit-bot/dixit/internal/webhook"
)

const demo = "../../examples/semver"

type clients struct{ srv *ghtest.Server }

func (c clients) InstallationClient(int64) (*github.Client, error) { return c.srv.Client(nil), nil }

// readDir returns the files under dir, by slash path.
func readDir(t *testing.T, dir string) map[string]string {
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return files
}

// TestLabelledIssueRunsToItsEscalationOnGitHub: a signed issues.labeled delivery starts a
// run on the demo's repository (served by git http-backend, GitHub faked at the HTTP
// level) with the scripted population standing in for the model; the issue gets one
// status comment, edited in place, and the check run completes with the outcome.
func TestLabelledIssueRunsToItsEscalationOnGitHub(t *testing.T) {
	spec, err := os.ReadFile(filepath.Join(demo, "spec.md"))
	require.NoError(t, err)
	settings, err := os.ReadFile(filepath.Join(demo, "dixit.yml"))
	require.NoError(t, err)
	files := readDir(t, filepath.Join(demo, "base"))
	files[repoconfig.Path] = string(settings)

	git := gittest.NewServer(t)
	url := git.Repo("Hello-World", "main", files)
	gh := ghtest.NewServer(t)
	gh.State.AddIssue("Codertocat", "Hello-World", 1, "Compare semantic versions", string(spec))
	gh.State.SetFile("Codertocat", "Hello-World", "main", repoconfig.Path, string(settings))

	exec := &Executor{
		Clients:    clients{gh},
		Token:      func(context.Context, int64) (string, error) { return git.Token, nil },
		GitURL:     func(_, repo string) string { return git.URL + "/" + repo + ".git" },
		StateDir:   t.TempDir(),
		BuildCache: filepath.Join(os.TempDir(), "dixit-test-gocache"),
		Population: demo,
	}
	runs, err := app.NewManager(filepath.Join(t.TempDir(), "runs"), exec.Execute, nil)
	require.NoError(t, err)
	base := app.Base{Clients: clients{gh}, Runs: runs, Label: "dixit", Logger: nil}
	hook, err := webhook.New(webhook.Config{Secret: []byte("a-test-webhook-secret"), QueueDir: t.TempDir()}, &app.IssuesHandler{Base: base})
	require.NoError(t, err)
	require.NoError(t, hook.Start(context.Background()))
	t.Cleanup(func() { hook.Shutdown(context.Background()); runs.Shutdown(context.Background()) })

	payload, err := os.ReadFile("../webhook/testdata/issues.labeled.json")
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(payload, &p))
	p["installation"] = map[string]any{"id": 7}
	p["label"] = map[string]any{"name": "dixit"}
	body, err := json.Marshal(p)
	require.NoError(t, err)
	for _, id := range []string{"d1", "d1", "d2"} { // a redelivery, then a second label event
		req, err := webhook.SignedRequest("/webhook", []byte("a-test-webhook-secret"), "issues", id, body)
		require.NoError(t, err)
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		require.Less(t, rec.Code, 300, rec.Body.String())
	}

	issue := app.Issue{Installation: 7, Owner: "Codertocat", Repo: "Hello-World", Number: 1}
	require.Eventually(t, func() bool {
		r, _, _ := runs.Record(issue)
		return r.State == app.Finished || r.State == app.Failed
	}, 5*time.Minute, 100*time.Millisecond)
	r, _, _ := runs.Record(issue)
	require.Equal(t, app.Finished, r.State, r.Detail)

	comments := gh.State.Comments("Codertocat", "Hello-World", 1)
	require.Len(t, comments, 1, "one status comment, edited in place; the duplicate delivery started nothing")
	assert.Contains(t, comments[0], "### Dixit: TESTERS_EXHAUSTED")
	assert.Contains(t, comments[0], "**3 vetted tests**")
	assert.Contains(t, comments[0], "| kai | active |")
	assert.Contains(t, comments[0], "| jun | hibernated |")

	var checkRun map[string]any
	for _, req := range gh.Requests() {
		if req.Method == http.MethodPatch && strings.Contains(req.Path, "check-runs/") {
			require.NoError(t, json.Unmarshal(req.Body, &checkRun))
		}
	}
	require.NotNil(t, checkRun, "the check run was completed")
	assert.Equal(t, "completed", checkRun["status"])
	assert.Equal(t, "neutral", checkRun["conclusion"])

	// The escalation PR: from dixit/1-pr into main, built on a coder that passes everything,
	// with the vetted tests added; every coder's branch is pushed too.
	prs, _, err := gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	require.Len(t, prs, 1)
	pr := prs[0]
	assert.Equal(t, "Dixit: Compare semantic versions", pr.GetTitle())
	assert.Equal(t, "dixit/1-pr", pr.GetHead().GetRef())
	assert.Equal(t, "main", pr.GetBase().GetRef())
	assert.True(t, strings.HasPrefix(pr.GetBody(), "Closes #1"), "TESTERS_EXHAUSTED closes the issue")
	assert.Contains(t, pr.GetBody(), "**TESTERS_EXHAUSTED**")
	assert.Contains(t, pr.GetBody(), "## Coders × vetted tests")
	branch, _, err := gitstate.FetchHead(context.Background(), url, "dixit/1-pr", git.Token)
	require.NoError(t, err)
	paths := map[string]bool{}
	for _, f := range branch {
		paths[f.Path] = true
	}
	for _, p := range []string{"semver.go", "dixit_t1_test.go", "dixit_t2_test.go", "dixit_t3_test.go"} {
		assert.True(t, paths[p], "the PR branch holds %s", p)
	}
	_, _, err = gitstate.FetchHead(context.Background(), url, "dixit/1/basil", git.Token)
	assert.NoError(t, err, "each coder's work is a branch a human can check out")

	// Escalating again updates the same PR.
	require.NoError(t, exec.Execute(context.Background(), issue))
	prs, _, err = gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	assert.Equal(t, 1, len(prs), "never a second PR")
	assert.Len(t, gh.State.Comments("Codertocat", "Hello-World", 1), 1, "never a second status comment")
}
