package reconcile

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ghapp"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/webhook"
)

const secret = "a-test-webhook-secret"

// world is the App as bot serve wires it (client creator, run manager, issues handler,
// webhook intake) over the fake GitHub, with an executor that counts the runs started.
type world struct {
	t     *testing.T
	gh    *ghtest.Server
	cc    *ghapp.ClientCreator
	runs  *app.Manager
	issue *app.IssuesHandler
	hook  *webhook.Server
	state string

	mu      sync.Mutex
	started map[string]int
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, gh: ghtest.NewServer(t), started: map[string]int{}, state: filepath.Join(t.TempDir(), "reconcile.json")}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	w.cc, err = ghapp.NewClientCreator(ghapp.Config{AppID: 99, PrivateKey: pemKey, BaseURL: w.gh.URL,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}) // retries without the waits
	require.NoError(t, err)
	w.runs, err = app.NewManager(filepath.Join(t.TempDir(), "runs"), app.ExecuteFunc(w.execute), nil)
	require.NoError(t, err)
	w.issue = &app.IssuesHandler{Base: app.Base{Clients: w.cc, Runs: w.runs, Label: "dixit"}}
	w.hook, err = webhook.New(webhook.Config{Secret: []byte(secret), QueueDir: filepath.Join(t.TempDir(), "queue")}, w.issue)
	require.NoError(t, err)
	require.NoError(t, w.hook.Start(context.Background()))
	t.Cleanup(func() {
		w.hook.Shutdown(context.Background())
		w.runs.Shutdown(context.Background())
	})
	return w
}

func (w *world) execute(ctx context.Context, i app.Issue) error {
	w.mu.Lock()
	w.started[i.String()]++
	w.mu.Unlock()
	<-ctx.Done()
	return nil
}

func (w *world) runsStarted() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for k, v := range w.started {
		out[k] = v
	}
	return out
}

func (w *world) reconciler(now time.Time) *Reconciler {
	w.t.Helper()
	r, err := New(Config{
		AppClient: w.cc.AppClient,
		Clients:   w.cc,
		Label:     "dixit",
		HasRun: func(i app.Issue) (bool, error) {
			_, ok, err := w.runs.Record(i)
			return ok, err
		},
		Start:     w.issue.StartIssue,
		Seen:      w.hook.Seen,
		StateFile: w.state,
		Now:       func() time.Time { return now },
	})
	require.NoError(w.t, err)
	return r
}

// deliver sends an issues event with this delivery id through the signed intake.
func (w *world) deliver(id string) {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "issues.labeled.json"))
	require.NoError(w.t, err)
	var p map[string]any
	require.NoError(w.t, json.Unmarshal(data, &p))
	p["action"] = "edited" // nothing to do for the handler
	p["installation"] = map[string]any{"id": 1}
	body, err := json.Marshal(p)
	require.NoError(w.t, err)
	req, err := webhook.SignedRequest("/webhook", []byte(secret), "issues", id, body)
	require.NoError(w.t, err)
	rec := httptest.NewRecorder()
	w.hook.ServeHTTP(rec, req)
	require.Equal(w.t, http.StatusAccepted, rec.Code, rec.Body.String())
}

func (w *world) redeliveryPosts() int {
	n := 0
	for _, r := range w.gh.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/attempts") {
			n++
		}
	}
	return n
}

func TestPassStartsLabelledIssuesWithoutARunOnly(t *testing.T) {
	w := newWorld(t)
	st := w.gh.State
	st.AddInstallation(1, "acme")
	st.AddInstallation(2, "globex")
	st.AddRepo("acme", "api", false, 1)
	st.AddRepo("acme", "web", true, 1)
	st.AddRepo("acme", "broken", false, 1)
	st.AddRepo("acme", "badconf", false, 1)
	st.AddRepo("globex", "tool", false, 2)
	labelled := func(owner, repo string, n int, label string) {
		st.AddIssue(owner, repo, n, "issue", "spec")
		if label != "" {
			st.AddLabel(owner, repo, n, label)
		}
	}
	labelled("acme", "api", 1, "dixit") // no record: started
	labelled("acme", "api", 2, "dixit") // a human stopped it: left alone
	labelled("acme", "api", 3, "dixit") // closed: left alone
	st.CloseIssue("acme", "api", 3)     //
	labelled("acme", "api", 4, "")      // no label: left alone
	labelled("acme", "api", 6, "bug")   // another label: left alone
	st.AddPullRequestIssue("acme", "api", 5, "a PR")
	st.AddLabel("acme", "api", 5, "dixit") // a pull request: vetted
	labelled("acme", "web", 7, "Dixit")    // labels match in any case: started
	labelled("acme", "broken", 1, "dixit") // its listing fails, retries included
	labelled("acme", "badconf", 1, "dixit")
	st.SetFile("acme", "badconf", "", ".github/dixit.yml", "coders: 2\n")
	labelled("globex", "tool", 3, "dixit") // another installation: started
	w.gh.Inject(ghtest.Fault{Method: http.MethodGet, Path: "repos/acme/broken/issues", Status: http.StatusInternalServerError,
		Times: 4, Body: `{"message":"Server Error"}`})

	stopped := app.Issue{Installation: 1, Owner: "acme", Repo: "api", Number: 2}
	_, err := w.runs.Start(stopped)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return w.runsStarted()[stopped.String()] == 1 }, 5*time.Second, 5*time.Millisecond)
	_, err = w.runs.Stop(stopped, app.Stopped)
	require.NoError(t, err)

	r := w.reconciler(time.Now())
	rep, err := r.Pass(t.Context())
	require.Error(t, err, "the broken repository's listing failed")
	assert.Contains(t, err.Error(), "acme/broken")
	assert.Equal(t, 2, rep.Installations)
	assert.Equal(t, 5, rep.Repositories)
	assert.Equal(t, 4, rep.Started, "api#1, api#5 (a pull request, vetted), web#7, tool#3")
	assert.Equal(t, 1, rep.Declined, "badconf#1 gets a comment instead of a run")
	assert.Equal(t, 1, rep.Errors)
	want := map[string]int{"acme/api#1": 1, "acme/api#2": 1, "acme/api#5": 1, "acme/web#7": 1, "globex/tool#3": 1}
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(want, w.runsStarted()) }, 5*time.Second, 5*time.Millisecond)
	pr, ok, err := w.runs.Record(app.Issue{Owner: "acme", Repo: "api", Number: 5})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, app.KindVet, pr.Issue.Kind, "a labelled pull request is vetted")
	rec, ok, err := w.runs.Record(app.Issue{Owner: "globex", Repo: "tool", Number: 3})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, int64(2), rec.Issue.Installation, "started as the installation that sees it")
	rec, _, _ = w.runs.Record(stopped)
	assert.Equal(t, app.Stopped, rec.State, "a stopped run stays stopped")
	require.Len(t, st.Comments("acme", "badconf", 1), 1)
	assert.Contains(t, st.Comments("acme", "badconf", 1)[0], "is invalid")

	// The next pass starts what the failure hid, and nothing twice: no second run, and
	// no second comment on the issue whose settings are bad.
	rep, err = r.Pass(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Started)
	want["acme/broken#1"] = 1
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(want, w.runsStarted()) }, 5*time.Second, 5*time.Millisecond)
	assert.Len(t, st.Comments("acme", "badconf", 1), 1)

	// Nor after a restart: the runs have records, the bad one is remembered.
	rep, err = w.reconciler(time.Now()).Pass(t.Context())
	require.NoError(t, err)
	assert.Zero(t, rep.Started)
	assert.Len(t, st.Comments("acme", "badconf", 1), 1)
}

func TestPassRedeliversFailedDeliveriesOnce(t *testing.T) {
	w := newWorld(t)
	st := w.gh.State
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	add := func(guid string, code int, at time.Time) int64 {
		return st.AddDelivery(ghtest.Delivery{GUID: guid, Event: "issues", Action: "labeled", StatusCode: code, DeliveredAt: at, InstallationID: 1})
	}
	lost := add("lost", http.StatusServiceUnavailable, ago(2*time.Hour))
	timedOut := add("timed-out", 0, ago(90*time.Minute))
	add("healed", http.StatusBadGateway, ago(3*time.Hour))
	st.AddDelivery(ghtest.Delivery{GUID: "healed", Event: "issues", Action: "labeled", StatusCode: 202, DeliveredAt: ago(time.Hour), Redelivery: true})
	add("seen", http.StatusGatewayTimeout, ago(time.Hour)) // we answered, GitHub gave up waiting
	add("old", http.StatusInternalServerError, ago(80*time.Hour))
	add("fine", http.StatusAccepted, ago(time.Minute))
	w.deliver("seen")
	require.True(t, w.hook.Seen("seen"))
	require.False(t, w.hook.Seen("lost"))

	r := w.reconciler(now)
	rep, err := r.Pass(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Redelivered)
	assert.Equal(t, []int64{lost, timedOut}, st.Redeliveries(), "oldest first, each once")

	// The redeliveries failed too (the fake repeats the original status), yet neither a
	// second pass nor a new reconciler on the same state file asks again.
	_, err = r.Pass(t.Context())
	require.NoError(t, err)
	rep, err = w.reconciler(now.Add(time.Minute)).Pass(t.Context())
	require.NoError(t, err)
	assert.Zero(t, rep.Redelivered)
	assert.Equal(t, 2, w.redeliveryPosts())
	assert.Len(t, st.Redeliveries(), 2)

	entries, err := os.ReadDir(filepath.Dir(w.state))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files left behind")
	var saved memory
	data, err := os.ReadFile(w.state)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &saved))
	assert.Len(t, saved.Redelivered, 2)
}

func TestPassCapsRedeliveriesAndPagesThroughDeliveries(t *testing.T) {
	w := newWorld(t)
	now := time.Now()
	var ids []int64
	for i := range 120 { // more than a page of 100, oldest first
		ids = append(ids, w.gh.State.AddDelivery(ghtest.Delivery{GUID: fmt.Sprintf("guid-%03d", i),
			Event: "issues", Action: "opened", StatusCode: 500, DeliveredAt: now.Add(-time.Duration(120-i) * time.Minute)}))
	}
	r := w.reconciler(now)
	var per []int
	for range 3 {
		rep, err := r.Pass(t.Context())
		require.NoError(t, err)
		per = append(per, rep.Redelivered)
	}
	assert.Equal(t, []int{50, 50, 20}, per, "at most 50 a pass")
	assert.Equal(t, ids, w.gh.State.Redeliveries(), "each once, oldest first")
}

func TestNewRefusesACorruptStateFile(t *testing.T) {
	w := newWorld(t)
	require.NoError(t, os.WriteFile(w.state, []byte("{not json"), 0o644))
	_, err := New(Config{
		AppClient: w.cc.AppClient, Clients: w.cc, Label: "dixit",
		HasRun: func(app.Issue) (bool, error) { return false, nil },
		Start:  w.issue.StartIssue, Seen: w.hook.Seen, StateFile: w.state,
	})
	require.ErrorContains(t, err, "corrupt")
}

func TestRunKeepsPassingUntilCancelled(t *testing.T) {
	w := newWorld(t)
	var mu sync.Mutex
	calls := 0
	r, err := New(Config{
		AppClient: func() (*github.Client, error) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			return nil, errors.New("no key today")
		},
		Clients: w.cc, Label: "dixit",
		HasRun: func(app.Issue) (bool, error) { return false, nil },
		Start:  w.issue.StartIssue, Seen: w.hook.Seen, StateFile: w.state, Interval: 5 * time.Millisecond,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return calls >= 6 }, 5*time.Second, time.Millisecond,
		"failing passes are not fatal")
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
