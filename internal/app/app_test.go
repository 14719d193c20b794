package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/repoconfig"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/webhook"
)

const secret = "a-test-webhook-secret"

// clients hands out clients of the fake GitHub for any installation.
type clients struct{ srv *ghtest.Server }

func (c clients) InstallationClient(int64) (*github.Client, error) { return c.srv.Client(nil), nil }

// harness is the App's intake and handlers over a fake GitHub, with an executor that runs
// until it is cancelled and counts its calls.
type harness struct {
	t       *testing.T
	gh      *ghtest.Server
	hook    *webhook.Server
	runs    *Manager
	mu      sync.Mutex
	started map[string]int
	last    map[string]Issue // the issue each run was last started with
	ended   map[string]bool
	failing bool // runs fail at once, as on a missing workshop
	n       int
	// decisions take the runs' decisions (newChecksHarness); nil: the runs take none.
	decisions *decisions
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, gh: ghtest.NewServer(t), started: map[string]int{}, last: map[string]Issue{}, ended: map[string]bool{}}
	var err error
	h.runs, err = NewManager(filepath.Join(t.TempDir(), "runs"), harnessRunner{h}, nil)
	require.NoError(t, err)
	base := Base{Clients: clients{h.gh}, Runs: h.runs, Label: "dixit", Logger: slogDiscard()}
	h.hook, err = webhook.New(webhook.Config{Secret: []byte(secret), QueueDir: filepath.Join(t.TempDir(), "queue")},
		&IssuesHandler{base}, &CommentHandler{base}, &PullRequestHandler{base})
	require.NoError(t, err)
	require.NoError(t, h.hook.Start(context.Background()))
	t.Cleanup(func() {
		h.hook.Shutdown(context.Background())
		h.runs.Shutdown(context.Background())
	})
	h.gh.State.SetPermission("Codertocat", "Hello-World", "writer", "write")
	h.gh.State.SetPermission("Codertocat", "Hello-World", "reader", "read")
	return h
}

// harnessRunner is the harness's Runner: its executor, and the decisions of a checks
// harness (none otherwise).
type harnessRunner struct{ h *harness }

func (r harnessRunner) Execute(ctx context.Context, i Issue) error { return r.h.execute(ctx, i) }

func (r harnessRunner) Decide(ctx context.Context, i Issue, onPR bool, ask session.Ask) (Issue, orchestrate.Decision, error) {
	if r.h.decisions == nil {
		return ExecuteFunc(nil).Decide(ctx, i, onPR, ask)
	}
	return r.h.decisions.decide(ctx, i, onPR, ask)
}

func (h *harness) execute(ctx context.Context, i Issue) error {
	h.mu.Lock()
	h.started[i.String()]++
	h.last[i.String()] = i
	failing := h.failing
	h.mu.Unlock()
	if failing {
		return errors.New("the workshop Codertocat/Hello-World-dixit does not exist")
	}
	<-ctx.Done()
	h.mu.Lock()
	h.ended[i.String()] = true
	h.mu.Unlock()
	return nil
}

// deliver sends a recorded payload, edited by edit, through the signed HTTP path and
// waits until it has been handled.
func (h *harness) deliver(event, file string, edit func(p map[string]any)) {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", file))
	require.NoError(h.t, err)
	var p map[string]any
	require.NoError(h.t, json.Unmarshal(data, &p))
	p["installation"] = map[string]any{"id": 42}
	edit(p)
	body, err := json.Marshal(p)
	require.NoError(h.t, err)
	h.n++
	before := h.hook.Stats().Processed + h.hook.Stats().Failed
	req, err := webhook.SignedRequest("/webhook", []byte(secret), event, fmt.Sprintf("delivery-%d", h.n), body)
	require.NoError(h.t, err)
	rec := httptest.NewRecorder()
	h.hook.ServeHTTP(rec, req)
	require.Equal(h.t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.Eventually(h.t, func() bool { s := h.hook.Stats(); return s.Processed+s.Failed > before }, 5*time.Second, 10*time.Millisecond)
}

func label(name string) func(map[string]any) {
	return func(p map[string]any) { p["label"] = map[string]any{"name": name} }
}

func commentBy(user, body string) func(map[string]any) {
	return func(p map[string]any) {
		c := p["comment"].(map[string]any)
		c["body"] = body
		kind := "User"
		if strings.HasSuffix(user, "[bot]") {
			kind = "Bot"
		}
		c["user"] = map[string]any{"login": user, "type": kind}
	}
}

const issue = "Codertocat/Hello-World#1"

func (h *harness) comments() []string { return h.gh.State.Comments("Codertocat", "Hello-World", 1) }

func TestLabelStartsOneRunAndUnlabelCancelsIt(t *testing.T) {
	h := newHarness(t)
	h.deliver("issues", "issues.labeled.json", label("bug"))
	assert.Zero(t, h.started[issue], "another label starts nothing")

	h.deliver("issues", "issues.labeled.json", label("dixit"))
	h.deliver("issues", "issues.labeled.json", label("Dixit"))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.started[issue] == 1 }, 5*time.Second, 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	h.mu.Lock()
	assert.Equal(t, 1, h.started[issue], "at most one run per issue")
	h.mu.Unlock()

	h.deliver("issues", "issues.unlabeled.json", label("dixit"))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.ended[issue] }, 5*time.Second, 10*time.Millisecond)
	r, ok, err := h.runs.Record(Issue{Owner: "Codertocat", Repo: "Hello-World", Number: 1})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Cancelled, r.State)
}

// "dixit:critics" starts a run as "dixit" does; a label naming no protocol starts nothing.
func TestAProtocolLabelStartsARun(t *testing.T) {
	h := newHarness(t)
	h.deliver("issues", "issues.labeled.json", label("dixit:vote"))
	h.deliver("issues", "issues.labeled.json", label("dixitish"))
	time.Sleep(100 * time.Millisecond)
	h.mu.Lock()
	assert.Zero(t, h.started[issue], "no protocol by those names")
	h.mu.Unlock()
	h.deliver("issues", "issues.labeled.json", label("Dixit:Critics"))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.started[issue] == 1 }, 5*time.Second, 10*time.Millisecond)
}

func TestProtocolLabel(t *testing.T) {
	for name, want := range map[string]string{"dixit": "", "DIXIT": "", "dixit:tdg": "tdg", "dixit: Blind": "blind", "dixit:single": "single"} {
		p, ok := ProtocolLabel("dixit", name)
		assert.True(t, ok, name)
		assert.Equal(t, want, p, name)
	}
	for _, name := range []string{"bug", "dixit:", "dixit:vote", "other:critics", "dixitcritics"} {
		_, ok := ProtocolLabel("dixit", name)
		assert.False(t, ok, name)
	}
}

func TestClosingTheIssueCancelsTheRun(t *testing.T) {
	h := newHarness(t)
	h.deliver("issues", "issues.labeled.json", label("dixit"))
	h.deliver("issues", "issues.closed.json", func(p map[string]any) { p["issue"].(map[string]any)["number"] = 1 })
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.ended[issue] }, 5*time.Second, 10*time.Millisecond)
}

func TestAnInvalidConfigGetsACommentAndNoRun(t *testing.T) {
	h := newHarness(t)
	h.gh.State.SetFile("Codertocat", "Hello-World", "main", repoconfig.Path, "coders: 2\n")
	h.deliver("issues", "issues.labeled.json", label("dixit"))
	assert.Zero(t, h.started[issue])
	require.Len(t, h.comments(), 1)
	assert.Contains(t, h.comments()[0], "coders: must be between 3 and 25 for protocol dixit (got 2)")
}

func TestCommands(t *testing.T) {
	h := newHarness(t)
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "Looks good to me."))
	assert.Empty(t, h.comments(), "conversation is ignored quietly")

	h.deliver("issue_comment", "issue_comment.created.json", commentBy("reader", "/dixit stop"))
	require.Len(t, h.comments(), 1)
	assert.Contains(t, h.comments()[0], "only people with write access")

	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit status"))
	assert.Contains(t, h.comments()[1], "No run for this issue")

	h.deliver("issues", "issues.labeled.json", label("dixit"))
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit status"))
	assert.Contains(t, h.comments()[2], "**running**")

	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit stop"))
	assert.Contains(t, h.comments()[3], "Stopped.")
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit resume"))
	assert.Contains(t, h.comments()[4], "Resumed")
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.started[issue] == 2 }, 5*time.Second, 10*time.Millisecond)

	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit launch"))
	assert.Contains(t, h.comments()[5], "I don't know `/dixit launch`")
	assert.True(t, strings.Contains(h.comments()[5], "/dixit status"))

	h.deliver("issue_comment", "issue_comment.created.json", commentBy("dixit[bot]", "/dixit stop"))
	assert.Len(t, h.comments(), 6, "the bot's own comments are not commands")
}

func TestRunsResumeAfterARestart(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	calls := 0
	block := func(ctx context.Context, i Issue) error {
		mu.Lock()
		calls++
		mu.Unlock()
		<-ctx.Done()
		return nil
	}
	first, err := NewManager(dir, ExecuteFunc(block), nil)
	require.NoError(t, err)
	i := Issue{Installation: 1, Owner: "o", Repo: "r", Number: 7}
	started, err := first.Start(i)
	require.NoError(t, err)
	require.True(t, started)
	require.NoError(t, first.Shutdown(context.Background()))

	second, err := NewManager(dir, ExecuteFunc(block), nil)
	require.NoError(t, err)
	n, err := second.ResumeAll()
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the interrupted run starts again")
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return calls == 2 }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, second.Shutdown(context.Background()))
}

func TestAFailingOrPanickingRunIsRecorded(t *testing.T) {
	m, err := NewManager(t.TempDir(), ExecuteFunc(func(context.Context, Issue) error { panic("boom") }), nil)
	require.NoError(t, err)
	i := Issue{Installation: 1, Owner: "o", Repo: "r", Number: 1}
	_, err = m.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := m.Record(i); return r.State == Failed }, 5*time.Second, 10*time.Millisecond)
	r, _, _ := m.Record(i)
	assert.Contains(t, r.Detail, "panic: boom")
}

// TestARunDrivenElsewhereIsAskedForAgainLater: while another server holds the run, the
// manager keeps the run as running (with the reason) and asks again; it does not fail it.
func TestARunDrivenElsewhereIsAskedForAgainLater(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	m, err := NewManager(t.TempDir(), ExecuteFunc(func(ctx context.Context, _ Issue) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls < 3 {
			return fmt.Errorf("%w (server-b, until later)", ErrElsewhere)
		}
		return nil
	}), nil)
	require.NoError(t, err)
	m.RetryElsewhere = 10 * time.Millisecond
	i := Issue{Installation: 1, Owner: "o", Repo: "r", Number: 2}
	_, err = m.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := m.Record(i); return r.State == Finished }, 5*time.Second, 5*time.Millisecond)
	mu.Lock()
	assert.Equal(t, 3, calls, "asked again until the run was free")
	mu.Unlock()

	// Stopping while waiting for the other server ends the wait at once.
	blocked, err := NewManager(t.TempDir(), ExecuteFunc(func(context.Context, Issue) error { return ErrElsewhere }), nil)
	require.NoError(t, err)
	blocked.RetryElsewhere = time.Hour
	_, err = blocked.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := blocked.Record(i); return strings.Contains(r.Detail, "another server") }, 5*time.Second, 5*time.Millisecond)
	live, err := blocked.Stop(i, Stopped)
	require.NoError(t, err)
	assert.True(t, live)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, blocked.Shutdown(ctx))
}

func TestAFailedRunCanBeResumed(t *testing.T) {
	h := newHarness(t)
	h.deliver("issues", "issues.labeled.json", label("dixit"))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.started[issue] == 1 }, 5*time.Second, 10*time.Millisecond)
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit resume"))
	assert.Contains(t, h.comments()[0], "no stopped or failed run", "a running run is not resumed twice")
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit stop"))

	h.mu.Lock()
	h.failing = true
	h.mu.Unlock()
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit resume"))
	r := Issue{Installation: 42, Owner: "Codertocat", Repo: "Hello-World", Number: 1}
	require.Eventually(t, func() bool { rec, _, _ := h.runs.Record(r); return rec.State == Failed }, 5*time.Second, 10*time.Millisecond)
	h.mu.Lock()
	h.failing = false
	h.mu.Unlock()
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit resume"))
	assert.Contains(t, h.comments()[len(h.comments())-1], "Resumed", "once fixed, a failed run resumes")
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.started[issue] == 3 }, 5*time.Second, 10*time.Millisecond)
}

// TestAFinishedWorkflowRunIsPassedOnToTheJudge: the real workflow_run.completed payload
// reaches Notify with the workshop, the run and its conclusion; other actions do not.
func TestAFinishedWorkflowRunIsPassedOnToTheJudge(t *testing.T) {
	var got []string
	h := &WorkflowRunHandler{Notify: func(owner, repo string, id int64, status, conclusion string) {
		got = append(got, fmt.Sprintf("%s/%s %d %s %s", owner, repo, id, status, conclusion))
	}}
	payload, err := os.ReadFile("../webhook/testdata/workflow_run.completed.json")
	require.NoError(t, err)
	require.NoError(t, h.Handle(context.Background(), "workflow_run", "d-1", payload))
	assert.Equal(t, []string{"octo-org/octo-repo 289782451 completed success"}, got)

	var p map[string]any
	require.NoError(t, json.Unmarshal(payload, &p))
	p["action"] = "requested"
	requested, err := json.Marshal(p)
	require.NoError(t, err)
	require.NoError(t, h.Handle(context.Background(), "workflow_run", "d-2", requested))
	assert.Len(t, got, 1, "only a completed run is news")
	assert.Error(t, h.Handle(context.Background(), "workflow_run", "d-3", []byte("{not json")))
}

// TestATransientFailureIsWaitedOut: a run that fails because GitHub failed on the way is
// tried again with growing waits, and ends normally; a final failure is not retried; a
// run that keeps failing stops after MaxTransient tries; a shutdown ends a wait at once.
func TestATransientFailureIsWaitedOut(t *testing.T) {
	errFlaky, errFinal := errors.New("502 Bad Gateway"), errors.New("404 Not Found")
	transient := func(err error) bool { return errors.Is(err, errFlaky) }
	var mu sync.Mutex
	var calls []time.Time
	m, err := NewManager(t.TempDir(), ExecuteFunc(func(context.Context, Issue) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, time.Now())
		if len(calls) < 3 {
			return fmt.Errorf("post comment: %w", errFlaky)
		}
		return nil
	}), nil)
	require.NoError(t, err)
	m.Transient, m.RetryTransient = transient, 20*time.Millisecond
	i := Issue{Installation: 1, Owner: "o", Repo: "r", Number: 3}
	_, err = m.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := m.Record(i); return r.State == Finished }, 5*time.Second, 5*time.Millisecond)
	mu.Lock()
	require.Len(t, calls, 3)
	assert.GreaterOrEqual(t, calls[2].Sub(calls[1]), 40*time.Millisecond, "the second wait is twice the first")
	mu.Unlock()

	final, err := NewManager(t.TempDir(), ExecuteFunc(func(context.Context, Issue) error { return errFinal }), nil)
	require.NoError(t, err)
	final.Transient, final.RetryTransient = transient, time.Millisecond
	_, err = final.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := final.Record(i); return r.State == Failed }, 5*time.Second, 5*time.Millisecond)

	var tries atomic.Int32
	always, err := NewManager(t.TempDir(), ExecuteFunc(func(context.Context, Issue) error { tries.Add(1); return errFlaky }), nil)
	require.NoError(t, err)
	always.Transient, always.RetryTransient, always.MaxTransient = transient, time.Millisecond, 3
	_, err = always.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := always.Record(i); return r.State == Failed }, 5*time.Second, 5*time.Millisecond)
	assert.EqualValues(t, 4, tries.Load(), "the first try and 3 retries")

	waiting, err := NewManager(t.TempDir(), ExecuteFunc(func(context.Context, Issue) error { return errFlaky }), nil)
	require.NoError(t, err)
	waiting.Transient, waiting.RetryTransient = transient, time.Hour
	_, err = waiting.Start(i)
	require.NoError(t, err)
	require.Eventually(t, func() bool { r, _, _ := waiting.Record(i); return strings.Contains(r.Detail, "retrying in 10m0s") }, 5*time.Second, 5*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, waiting.Shutdown(ctx), "a ten-minute wait ends with the server")
}

// TestSettingsGitHubFailedToServeAreReadAgain: when reading dixit.yml fails because
// GitHub failed (a 502), the delivery is tried again and the run starts; the issue is not
// told that its settings could not be read.
func TestSettingsGitHubFailedToServeAreReadAgain(t *testing.T) {
	h := newHarness(t)
	h.runs.Transient = ghapp.Transient
	h.gh.Inject(ghtest.Fault{Method: http.MethodGet, Path: "repos/Codertocat/Hello-World/contents/" + repoconfig.Path,
		Status: http.StatusBadGateway, Body: `{"message":"Server Error"}`})
	h.deliver("issues", "issues.labeled.json", label("dixit"))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.started[issue] == 1 }, 10*time.Second, 10*time.Millisecond)
	assert.Empty(t, h.comments())
}
