package apprun

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
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

const (
	buggyPatch   = "../../examples/semver-patches/string-compare" // compares version numbers as strings
	correctPatch = demo + "/coders/amber/1"                       // the demo's consensus implementation
)

// push records the base with patchDir's files over it as the head of pull request #2
// (branch agent/semver, and GitHub's refs/pull/2/head), and returns the commit.
func (w *world) push(t *testing.T, parent, patchDir string) string {
	return w.pushTo(t, 2, "agent/semver", parent, patchDir)
}

func (w *world) pushTo(t *testing.T, number int, branch, parent, patchDir string) string {
	files := gittest.ReadDir(t, filepath.Join(demo, "base"))
	settings, err := os.ReadFile(filepath.Join(demo, "dixit.yml"))
	require.NoError(t, err)
	files[repoconfig.Path] = string(settings)
	for p, c := range gittest.ReadDir(t, patchDir) {
		if strings.HasSuffix(p, ".go") {
			c += "\n// CANARY-PATCH: the patch's code must reach no agent.\n"
		}
		files[p] = c
	}
	return w.git.Commit("Hello-World", parent, files, "refs/heads/"+branch, fmt.Sprintf("refs/pull/%d/head", number))
}

// deliverPR sends a signed pull_request delivery (a real payload) about pull request #2.
func (w *world) deliverPR(t *testing.T, s *server, file, id string, labels ...string) {
	w.deliverPRTo(t, s, 2, file, id, labels...)
}

func (w *world) deliverPRTo(t *testing.T, s *server, number int, file, id string, labels ...string) {
	payload, err := os.ReadFile("../webhook/testdata/" + file)
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(payload, &p))
	p["installation"] = map[string]any{"id": 7}
	p["label"] = map[string]any{"name": "dixit"}
	var ls []any
	for _, l := range labels {
		ls = append(ls, map[string]any{"name": l})
	}
	p["pull_request"].(map[string]any)["labels"] = ls
	p["pull_request"].(map[string]any)["number"], p["number"] = number, number
	body, err := json.Marshal(p)
	require.NoError(t, err)
	req, err := webhook.SignedRequest("/webhook", []byte("a-test-webhook-secret"), "pull_request", id, body)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	s.hook.ServeHTTP(rec, req)
	require.Less(t, rec.Code, 300, rec.Body.String())
}

// checkOn returns the completed "Dixit vet" check run on a commit, waiting for it.
func (w *world) checkOn(t *testing.T, sha string) *github.CheckRun {
	var found *github.CheckRun
	require.Eventually(t, func() bool {
		res, _, err := w.gh.Client(nil).Checks.ListCheckRunsForRef(context.Background(), "Codertocat", "Hello-World", sha,
			&github.ListCheckRunsOptions{CheckName: github.String(VetCheck)})
		require.NoError(t, err)
		for _, cr := range res.CheckRuns {
			if cr.GetStatus() == "completed" {
				found = cr
				return true
			}
		}
		return false
	}, 5*time.Minute, 100*time.Millisecond, "the head %s gets a completed check run", sha)
	return found
}

// TestAnAgentsPullRequestIsVettedOnGitHub: an agent's pull request for the demo's issue
// compares version numbers as strings. Labelled `dixit`, it is vetted: a Dixit run
// builds issue #1 (the issue it closes) from the base, and the PR's head gets a failing
// check run and a review naming the vetted test that catches the bug. A push of a
// correct patch is judged against the same suite without new agent work, and updates
// the same review; since that review showed the suite, passing it is neutral, not
// success. Another pull request whose first head is correct gets success. Nothing is
// pushed to the target repository and no other pull request is opened.
func TestAnAgentsPullRequestIsVettedOnGitHub(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	buggy := w.push(t, "main", buggyPatch)
	w.gh.State.AddPull("Codertocat", "Hello-World", 2, ghtest.PullSpec{
		Title: "Sort versions", Body: "Fixes #1\n\nVersions now compare correctly; all my tests pass. CANARY-PR-BODY",
		User: "coding-agent[bot]", HeadRef: "agent/semver", HeadSHA: buggy, BaseRef: "main", BaseSHA: w.main,
	})
	pr := app.Issue{Installation: 7, Owner: "Codertocat", Repo: "Hello-World", Number: 2, Kind: app.KindVet}
	s := w.server(t, "server-a", shareResults)
	w.deliverPR(t, s, "pull_request.labeled.json", "p1", "dixit")
	r := waitEnd(t, s, pr)
	require.Equal(t, app.Finished, r.State, r.Detail)

	check := w.checkOn(t, buggy)
	assert.Equal(t, "failure", check.GetConclusion())
	assert.Equal(t, "failure: passes 1 of 3 vetted tests", check.GetOutput().GetTitle())
	assert.Contains(t, check.GetOutput().GetSummary(), "test 1, which 5 of 5 independent implementations pass, is the first")
	assert.Contains(t, check.GetOutput().GetSummary(), "Spec: issue #1, which this pull request closes (`Fixes #1`)")

	reviews := w.gh.State.Reviews("Codertocat", "Hello-World", 2)
	require.Len(t, reviews, 1)
	review := reviews[0]
	assert.Equal(t, "COMMENTED", review.State, "a comment: the check run carries the verdict")
	assert.Equal(t, buggy, review.CommitID)
	for _, part := range []string{
		"**Verdict: failure.**", "| test 1 `ivy-3` | fail | 5 of 5 |",
		"<details><summary>test 1: <code>ivy-3</code>", "the patch's output on test 1",
		"`[\"1.10.0\",\"1.9.0\"]`", // differential testing: an input where it answers otherwise
		"Keep the 3 vetted tests", "+++ b/dixit_t1_test.go",
	} {
		assert.Contains(t, review.Body, part)
	}
	assert.Len(t, w.gh.State.Comments("Codertocat", "Hello-World", 2), 1, "one status comment on the pull request")
	journal := w.journalOf(t, VetRunID(pr))
	require.NotEmpty(t, journal, "the run is mirrored to the workshop")
	// Everything the agents worked from and on is in the workshop: the spec, the base,
	// their branches, the journal of their turns. None of it holds the patch or the
	// pull request's description.
	objects := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	objects.Dir = w.git.Path("Hello-World-dixit")
	all, err := objects.Output()
	require.NoError(t, err)
	assert.Contains(t, string(all), "Compare semantic versions", "the workshop holds the run")
	assert.NotContains(t, string(all), "CANARY-PATCH")
	assert.NotContains(t, string(all), "CANARY-PR-BODY")

	// The agent pushes a correct patch.
	correct := w.push(t, buggy, correctPatch)
	w.gh.State.SetPullHead("Codertocat", "Hello-World", 2, correct)
	w.deliverPR(t, s, "pull_request.synchronize.json", "p2", "dixit")
	check = w.checkOn(t, correct)
	r = waitEnd(t, s, pr)
	require.Equal(t, app.Finished, r.State, r.Detail)
	assert.Equal(t, "neutral", check.GetConclusion(), "the review had shown the suite before this head was pushed")
	assert.Contains(t, check.GetOutput().GetSummary(), "passes all 3 vetted tests, but this pull request's review showed them")
	assert.Equal(t, "failure", w.checkOn(t, buggy).GetConclusion(), "the old head keeps its verdict")
	reviews = w.gh.State.Reviews("Codertocat", "Hello-World", 2)
	require.Len(t, reviews, 1, "the same review, edited")
	assert.Contains(t, reviews[0].Body, "**Verdict: neutral.**")
	full, _, err := gitstate.FetchHead(context.Background(), w.git.URL+"/Hello-World-dixit.git", "dixit/2-report", w.git.Token)
	require.NoError(t, err)
	for _, f := range full {
		if f.Path == "report.md" {
			assert.Contains(t, string(f.Content), "**Verdict: neutral.**", "the full report agrees with the check run")
		}
	}
	assert.Contains(t, reviews[0].Body, "Dixit vetted "+correct[:12])
	assert.Equal(t, journal, w.journalOf(t, VetRunID(pr)), "the new head cost the judge only: no new agent work")

	// A correct patch judged on tests nobody has shown it: success.
	first := w.pushTo(t, 3, "agent/semver-2", "main", correctPatch)
	w.gh.State.AddPull("Codertocat", "Hello-World", 3, ghtest.PullSpec{
		Title: "Sort versions", Body: "Fixes #1", User: "coding-agent[bot]", HeadRef: "agent/semver-2", HeadSHA: first, BaseRef: "main", BaseSHA: w.main,
	})
	w.deliverPRTo(t, s, 3, "pull_request.labeled.json", "p3", "dixit")
	assert.Equal(t, "success", w.checkOn(t, first).GetConclusion())
	pr3 := app.Issue{Installation: 7, Owner: "Codertocat", Repo: "Hello-World", Number: 3, Kind: app.KindVet}
	require.Equal(t, app.Finished, waitEnd(t, s, pr3).State)
	require.Len(t, w.gh.State.Reviews("Codertocat", "Hello-World", 3), 1)
	assert.Contains(t, w.gh.State.Reviews("Codertocat", "Hello-World", 3)[0].Body, "**Verdict: success.**")

	prs, _, err := w.gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	require.Len(t, prs, 2, "vetting opens no pull request")
	var targetRefs []string
	for ref := range w.git.Refs("Hello-World") {
		if !strings.HasPrefix(ref, "refs/pull/") {
			targetRefs = append(targetRefs, ref)
		}
	}
	assert.ElementsMatch(t, []string{"refs/heads/main", "refs/heads/agent/semver", "refs/heads/agent/semver-2"}, targetRefs, "nothing is pushed to the target")
	assert.Contains(t, w.git.Refs("Hello-World-dixit"), "refs/heads/dixit/2-report", "the full report is in the workshop")
}

// TestTheSpecIsTheIssueThePullRequestCloses: the spec is the first issue of this
// repository the description closes with GitHub's keywords; another repository's issue,
// a pull request, a missing issue or the pull request itself are passed over; without
// one, the description is the spec, and the review says which was used.
func TestTheSpecIsTheIssueThePullRequestCloses(t *testing.T) {
	gh := ghtest.NewServer(t)
	gh.State.AddIssue("o", "r", 1, "Compare versions", "Versions compare by number.")
	gh.State.AddPull("o", "r", 2, ghtest.PullSpec{Title: "Fix", HeadRef: "fix", HeadSHA: strings.Repeat("b", 40), BaseRef: "main", BaseSHA: strings.Repeat("a", 40)})
	gh.State.AddIssue("elsewhere", "r", 1, "Not this one", "Another repository's issue.")
	e := &Executor{Clients: clients{gh}}
	client, _ := e.Clients.InstallationClient(7)
	pr := app.Issue{Installation: 7, Owner: "o", Repo: "r", Number: 2, Kind: app.KindVet}
	for body, want := range map[string]string{
		"Fixes #1":                                        "issue #1, which this pull request closes (`Fixes #1`)",
		"This resolves: o/r#1 at last.":                   "issue #1, which this pull request closes (`resolves: o/r#1`)",
		"closed https://github.com/o/r/issues/1":          "issue #1, which this pull request closes (`closed https://github.com/o/r/issues/1`)",
		"Fixes elsewhere/r#1, fixes #2, fixes #9. Fix #1": "issue #1, which this pull request closes (`Fix #1`)",
		"Sorts versions; see #1.":                         "this pull request's description (it names no issue it closes)",
		"":                                                "",
	} {
		pull := &github.PullRequest{Title: github.String("Fix"), Body: github.String(body)}
		spec, source, err := e.vetSpec(context.Background(), client, pr, pull, t.TempDir())
		require.NoError(t, err, body)
		assert.Equal(t, want, source, body)
		switch {
		case want == "":
			assert.Empty(t, spec, "nothing to build from")
		case strings.HasPrefix(want, "issue"):
			assert.Equal(t, "# Compare versions\n\nVersions compare by number.", spec, body)
		default:
			assert.Equal(t, "# Fix\n\n"+body, spec)
		}
	}
}
