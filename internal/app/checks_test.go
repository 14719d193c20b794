package app

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/webhook"
)

// decisions is a runner's Decide: it records what it was asked and refuses what refuse says.
type decisions struct {
	mu     sync.Mutex
	asks   []session.Ask
	refuse error
}

func (d *decisions) decide(_ context.Context, issue Issue, _ bool, ask session.Ask) (Issue, orchestrate.Decision, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refuse != nil {
		return issue, orchestrate.Decision{}, d.refuse
	}
	d.asks = append(d.asks, ask)
	return issue, orchestrate.Decision{ID: ask.ID, Verb: ask.Verb, Args: ask.Args, By: ask.By}, nil
}

// newChecksHarness is the harness with the check handler beside the others, and runs
// that take decisions.
func newChecksHarness(t *testing.T) (*harness, *decisions) {
	h, d := newHarness(t), &decisions{}
	h.decisions = d
	base := Base{Clients: clients{h.gh}, Runs: h.runs, Label: "dixit", Logger: slogDiscard()}
	hook, err := webhook.New(webhook.Config{Secret: []byte(secret), QueueDir: filepath.Join(t.TempDir(), "queue")},
		&IssuesHandler{base}, &CommentHandler{base}, &PullRequestHandler{base}, &CheckHandler{base})
	require.NoError(t, err)
	require.NoError(t, hook.Start(context.Background()))
	t.Cleanup(func() { hook.Shutdown(context.Background()) })
	h.hook = hook
	return h, d
}

const headSHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"

// checkRun creates a check run on the fake as the App does (its external id is the run's id).
func (h *harness) checkRun(name, externalID string) *github.CheckRun {
	h.t.Helper()
	cr, _, err := h.gh.Client(nil).Checks.CreateCheckRun(context.Background(), "Codertocat", "Hello-World", github.CreateCheckRunOptions{
		Name: name, HeadSHA: headSHA, ExternalID: github.String(externalID), Conclusion: github.String("neutral"),
	})
	require.NoError(h.t, err)
	return cr
}

// onCheck points a recorded check_run payload at cr in Codertocat/Hello-World, clicked by user.
func onCheck(cr *github.CheckRun, user string, more ...func(map[string]any)) func(map[string]any) {
	return func(p map[string]any) {
		c := p["check_run"].(map[string]any)
		c["id"], c["name"], c["external_id"], c["head_sha"] = cr.GetID(), cr.GetName(), cr.GetExternalID(), cr.GetHeadSHA()
		inRepo(p)
		p["sender"] = map[string]any{"login": user, "type": "User"}
		for _, f := range more {
			f(p)
		}
	}
}

func inRepo(p map[string]any) {
	r := p["repository"].(map[string]any)
	r["name"], r["full_name"] = "Hello-World", "Codertocat/Hello-World"
	r["owner"].(map[string]any)["login"] = "Codertocat"
}

func clicked(identifier string) func(map[string]any) {
	return func(p map[string]any) { p["requested_action"] = map[string]any{"identifier": identifier} }
}

// stoppedRun is issue #1's run, started and then stopped by a human.
func (h *harness) stoppedRun(kind string, number int) Issue {
	h.t.Helper()
	i := Issue{Installation: 42, Owner: "Codertocat", Repo: "Hello-World", Number: number, Kind: kind}
	_, err := h.runs.Start(i)
	require.NoError(h.t, err)
	h.waitStarted(i.String(), 1)
	_, err = h.runs.Stop(i, Stopped)
	require.NoError(h.t, err)
	return i
}

// buttonsCleared tells whether the App removed the buttons of check run id.
func (h *harness) buttonsCleared(id int64) bool {
	for _, r := range h.gh.Requests() {
		if r.Method == "PATCH" && strings.HasSuffix(r.Path, "/check-runs/"+strconv.FormatInt(id, 10)) && strings.Contains(string(r.Body), `"actions":[]`) {
			return true
		}
	}
	return false
}

func TestRerunOnTheDixitCheckResumesTheIssuesRun(t *testing.T) {
	h, _ := newChecksHarness(t)
	h.stoppedRun("", 1)
	cr := h.checkRun("Dixit", "codertocat_hello-world-1")

	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(cr, "reader"))
	assert.Contains(t, h.comments()[0], "@reader only people with write access")
	n, _ := h.startedWith(issue)
	assert.Equal(t, 1, n, "a reader's click changes nothing")

	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(cr, "writer"))
	got := h.waitStarted(issue, 2)
	assert.Equal(t, 1, got.Number)
	assert.Equal(t, "", got.Kind)
	assert.Contains(t, h.comments()[1], "@writer Re-running: the run goes on from where it stopped")
	assert.True(t, h.buttonsCleared(cr.GetID()), "the buttons answered the stop that is over")

	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(cr, "writer"))
	assert.Contains(t, h.comments()[2], "going on already")
	n, _ = h.startedWith(issue)
	assert.Equal(t, 2, n)
}

func TestRerunLeavesACancelledRunAndOthersChecksAlone(t *testing.T) {
	h, _ := newChecksHarness(t)
	i := h.stoppedRun("", 1)
	_, err := h.runs.Stop(i, Cancelled)
	require.NoError(t, err)

	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(h.checkRun("Dixit", "codertocat_hello-world-1"), "writer"))
	require.Len(t, h.comments(), 1)
	assert.Contains(t, h.comments()[0], "was cancelled")
	assert.Contains(t, h.comments()[0], "add the `dixit` label")

	// Another App's check, one for an issue this server holds no run of, and the recorded
	// payload as GitHub sends it for another repository: nothing happens.
	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(h.checkRun("lint", "42"), "writer"))
	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(h.checkRun("Dixit", "codertocat_hello-world-9"), "writer"))
	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", func(map[string]any) {})
	assert.Len(t, h.comments(), 1)
	n, _ := h.startedWith(issue)
	assert.Equal(t, 1, n)
}

func TestRerunOnTheVetCheckVetsThePullRequestAgain(t *testing.T) {
	h, _ := newChecksHarness(t)
	h.stoppedRun(KindVet, 2)
	cr := h.checkRun("Dixit vet", "codertocat_hello-world-2-vet")

	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(cr, "writer"))
	got := h.waitStarted(pr, 2)
	assert.Equal(t, KindVet, got.Kind)
	comments := h.gh.State.Comments("Codertocat", "Hello-World", 2)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0], "Vetting this pull request again")
	assert.False(t, h.buttonsCleared(cr.GetID()), "a vetting offers no buttons")

	// The issue's run id on a pull request's vetting names another run: not ours.
	h.deliver("check_run", "../../app/testdata/check_run.rerequested.json", onCheck(h.checkRun("Dixit", "codertocat_hello-world-2"), "writer"))
	n, _ := h.startedWith(pr)
	assert.Equal(t, 2, n)
}

func TestAButtonIsCarriedOutLikeTheCommand(t *testing.T) {
	h, d := newChecksHarness(t)
	h.stoppedRun("", 1)
	cr := h.checkRun("Dixit", "codertocat_hello-world-1")

	h.deliver("check_run", "../../app/testdata/check_run.requested_action.json", onCheck(cr, "reader", clicked("continue")))
	assert.Contains(t, h.comments()[0], "@reader only people with write access")
	assert.Empty(t, d.asks, "a reader's click decides nothing")

	h.deliver("check_run", "../../app/testdata/check_run.requested_action.json", onCheck(cr, "writer", clicked("budget rounds 20")))
	h.waitStarted(issue, 2)
	require.Len(t, d.asks, 1)
	ask := d.asks[0]
	assert.Equal(t, "budget", ask.Verb)
	assert.Equal(t, []string{"rounds", "20"}, ask.Args)
	assert.Equal(t, "writer", ask.By)
	assert.Equal(t, "action-delivery-2", ask.ID, "the delivery names the decision: handled twice, recorded once")
	assert.WithinDuration(t, time.Now(), ask.At, time.Minute)
	assert.Contains(t, h.comments()[1], "@writer Noted: `budget rounds 20`. The run goes on from where it stopped")
	assert.True(t, h.buttonsCleared(cr.GetID()))

	// A button Dixit never offers (the recorded payload's own) is ignored.
	h.deliver("check_run", "../../app/testdata/check_run.requested_action.json", onCheck(cr, "writer"))
	assert.Len(t, d.asks, 1)
	assert.Len(t, h.comments(), 2)
}

func TestARefusedButtonSaysWhyAndChangesNothing(t *testing.T) {
	h, d := newChecksHarness(t)
	h.stoppedRun("", 1)
	d.refuse = errors.New("the run has not stopped for a human yet")

	h.deliver("check_run", "../../app/testdata/check_run.requested_action.json", onCheck(h.checkRun("Dixit", "codertocat_hello-world-1"), "writer", clicked("wake")))
	require.Len(t, h.comments(), 1)
	assert.Equal(t, "@writer I did not change anything: the run has not stopped for a human yet.", h.comments()[0])
	n, _ := h.startedWith(issue)
	assert.Equal(t, 1, n)
}

func TestRerunAllChecksResumesEachOfOurRunsOnTheCommit(t *testing.T) {
	h, _ := newChecksHarness(t)
	h.stoppedRun("", 1)
	ours := h.checkRun("Dixit", "codertocat_hello-world-1")
	h.checkRun("lint", "codertocat_hello-world-7")
	suite := h.gh.State.CheckRun(ours.GetID())["check_suite"].(map[string]any)["id"]

	h.deliver("check_suite", "../../app/testdata/check_suite.rerequested.json", func(p map[string]any) {
		inRepo(p)
		s := p["check_suite"].(map[string]any)
		s["id"], s["head_sha"] = suite, headSHA
		p["sender"] = map[string]any{"login": "writer", "type": "User"}
	})
	h.waitStarted(issue, 2)
	assert.Contains(t, h.comments()[0], "Re-running")
}
