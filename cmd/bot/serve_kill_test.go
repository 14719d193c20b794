package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/apprun"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
	"github.com/dixit-bot/dixit/internal/webhook"
)

const webhookSecret = "a-test-webhook-secret"

// TestKilledServerResumesToTheSameEnd runs `bot serve` as a process against the fake
// GitHub and a git host, with the demo's scripted population. Issue 1 runs without
// interruption. Issue 2, the same request, is driven by a server killed with SIGKILL at
// random moments and started again each time (and redelivered the label event, as
// GitHub does, until one delivery was accepted). Issue 2 must end as issue 1 did: the
// same outcome and vetted tests, as many journal entries (no effect paid twice), and one
// status comment, one check run and one PR, each created once.
func TestKilledServerResumesToTheSameEnd(t *testing.T) {
	w := newServeWorld(t, 2)
	state, addr := t.TempDir(), freeAddr(t)
	serve := func() *exec.Cmd { return w.serve("kill-test", state, addr) }
	ended := func(n int) bool { return w.ended(t, n) }

	// Issues 1 and 2, uninterrupted: how a run ends, and (the second time, with every
	// verdict cached) how long it takes.
	srv := start(t, serve())
	deliverLabel(t, addr, 1, "d-1")
	waitFor(t, func() bool { return ended(1) }, 5*time.Minute, "issue 1 ends")
	began := time.Now()
	deliverLabel(t, addr, 2, "d-2")
	waitFor(t, func() bool { return ended(2) }, 5*time.Minute, "issue 2 ends")
	span := time.Since(began)
	stop(t, srv)
	whole := journal(t, w.git, issue(1))
	require.Len(t, journal(t, w.git, issue(2)), len(whole), "two uninterrupted runs journal alike")
	vetted := regexp.MustCompile(`\*\*\d+ vetted tests\*\*`)
	wholeVetted := vetted.FindString(w.gh.State.Comments("Codertocat", "Hello-World", 1)[0])
	seed := uint64(time.Now().UnixNano())
	rng := mathrand.New(mathrand.NewPCG(seed, 2))
	t.Logf("an uninterrupted run: %d journal entries, %s with warm caches; kill delays seeded with %d",
		len(whole), span.Round(time.Millisecond), seed)

	// Issues 3, 4, ...: each run is killed until it ends, until enough kills landed.
	kills, want := 0, killsWanted(6)
	for n := 3; kills < want; n++ {
		w.gh.State.AddIssue("Codertocat", "Hello-World", n, "Compare semantic versions", w.spec)
		delivery, accepted, cycle := fmt.Sprintf("d-%d", n), false, 0
		for {
			srv := start(t, serve())
			if !accepted {
				accepted = tryDeliverLabel(addr, n, delivery)
			}
			if kills+cycle >= want {
				waitFor(t, func() bool { return ended(n) }, 5*time.Minute, "the run ends after the last kill")
			} else {
				time.Sleep(time.Duration(rng.Int64N(int64(span))))
			}
			if ended(n) {
				stop(t, srv)
				break
			}
			require.NoError(t, syscall.Kill(-srv.Process.Pid, syscall.SIGKILL))
			_ = srv.Wait()
			cycle++
		}
		kills += cycle
		t.Logf("issue %d: %d kills", n, cycle)

		// The same end, paid once.
		comments := w.gh.State.Comments("Codertocat", "Hello-World", n)
		require.Len(t, comments, 1, "one status comment")
		assert.Equal(t, wholeVetted, vetted.FindString(comments[0]), "no vetted test lost")
		assert.Len(t, journal(t, w.git, issue(n)), len(whole), "no effect journalled twice")
		assert.Equal(t, map[string]int{"comment": 1, "pull request": 1, "check run": 1}, w.creates(n), "each created once")
	}
	t.Logf("%d kills", kills)
}

// TestTwoServerProcessesDriveARunOnce: two `bot serve` processes, each with its own
// disk, get the same delivery. One drives the run; the other backs off while the run's
// lease is held, then finds the run finished and creates nothing.
func TestTwoServerProcessesDriveARunOnce(t *testing.T) {
	w := newServeWorld(t, 1)
	var logs [2]bytes.Buffer
	var states, addrs [2]string
	for i := range 2 {
		states[i], addrs[i] = t.TempDir(), freeAddr(t)
		cmd := w.serve(fmt.Sprintf("server-%c", 'a'+i), states[i], addrs[i])
		cmd.Stdout, cmd.Stderr = &logs[i], &logs[i]
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	}
	for i := range 2 {
		deliverLabel(t, addrs[i], 1, "d-1")
	}
	waitFor(t, func() bool { return w.ended(t, 1) }, 5*time.Minute, "the run ends")
	finished := func(state string) bool {
		data, err := os.ReadFile(filepath.Join(state, "issues", "Codertocat__Hello-World__1.json"))
		var r app.Record
		return err == nil && json.Unmarshal(data, &r) == nil && r.State == app.Finished
	}
	for deadline := time.Now().Add(2 * time.Minute); !finished(states[0]) || !finished(states[1]); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			for i := range states {
				record, _ := os.ReadFile(filepath.Join(states[i], "issues", "Codertocat__Hello-World__1.json"))
				t.Logf("server %d: %s\n%s", i, record, logs[i].String())
			}
			t.Fatal("the server that backed off did not take its turn and find the run finished")
		}
	}
	backedOff := 0
	for i := range logs {
		if strings.Contains(logs[i].String(), "another server drives this run") {
			backedOff++
		}
	}
	assert.Equal(t, 1, backedOff, "exactly one server backed off")
	assert.Len(t, w.gh.State.Comments("Codertocat", "Hello-World", 1), 1)
	assert.Equal(t, map[string]int{"comment": 1, "pull request": 1, "check run": 1}, w.creates(1), "each created once")
}

// serveWorld is GitHub (faked at the HTTP level) and a git host for `bot serve`
// processes: the demo's repository, its private workshop, and n issues asking for the
// demo's spec.
type serveWorld struct {
	gh      *ghtest.Server
	git     *gittest.Server
	bin     string
	keyFile string
	spec    string
}

const demoDir = "../../examples/semver"

func newServeWorld(t *testing.T, issues int) *serveWorld {
	w := &serveWorld{gh: ghtest.NewServer(t), git: gittest.NewServer(t), bin: buildBot(t)}
	w.git.Accept = func(token string) bool { return strings.HasPrefix(token, "ghs_fake_7_") || token == w.git.Token }
	files := gittest.ReadDir(t, filepath.Join(demoDir, "base"))
	settings, err := os.ReadFile(filepath.Join(demoDir, "dixit.yml"))
	require.NoError(t, err)
	files[".github/dixit.yml"] = string(settings)
	w.git.Repo("Codertocat/Hello-World", "main", files)
	w.git.EmptyRepo("Codertocat/Hello-World-dixit")
	spec, err := os.ReadFile(filepath.Join(demoDir, "spec.md"))
	require.NoError(t, err)
	w.gh.State.AddInstallation(7, "Codertocat")
	w.gh.State.AddRepo("Codertocat", "Hello-World", false, 7)
	w.gh.State.AddRepo("Codertocat", "Hello-World-dixit", true, 7)
	w.spec = string(spec)
	for n := 1; n <= issues; n++ {
		w.gh.State.AddIssue("Codertocat", "Hello-World", n, "Compare semantic versions", w.spec)
	}
	w.gh.State.SetFile("Codertocat", "Hello-World", "main", ".github/dixit.yml", string(settings))
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	w.keyFile = filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(w.keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	return w
}

// serve is a `bot serve` command named name, on its own state directory; the servers of
// this test binary share the demo kill test's verdict cache, as servers on a shared
// volume may.
func (w *serveWorld) serve(name, state, addr string) *exec.Cmd {
	cmd := exec.Command(w.bin, "serve")
	cmd.Env = append(os.Environ(), "DIXIT_GITHUB_APP_ID=99", "DIXIT_GITHUB_PRIVATE_KEY_FILE="+w.keyFile,
		"DIXIT_WEBHOOK_SECRET="+webhookSecret, "DIXIT_GITHUB_BASE_URL="+w.gh.URL, "DIXIT_GITHUB_GIT_URL="+w.git.URL+"/",
		"DIXIT_STATE_DIR="+state, "DIXIT_POPULATION="+demoDir, "DIXIT_LISTEN="+addr, "DIXIT_NAME="+name,
		"DIXIT_LEASE_TTL=10s", "DIXIT_RESULT_CACHE="+cmp.Or(os.Getenv("DIXIT_TEST_RESULTS"), filepath.Join(demoState(w.bin), "cache")),
		"DIXIT_BUILD_CACHE="+filepath.Join(os.TempDir(), "dixit-test-gocache"),
		"DIXIT_METRICS_LISTEN=off") // two servers on one host would fight over the default port
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// ended reports whether issue n's run has published its end: the final status comment
// and the PR.
func (w *serveWorld) ended(t *testing.T, n int) bool {
	c := w.gh.State.Comments("Codertocat", "Hello-World", n)
	return len(c) > 0 && strings.Contains(c[0], "### Dixit: TESTERS_EXHAUSTED") && hasPR(t, w.gh, n)
}

// creates counts what was created on GitHub for issue n's run.
func (w *serveWorld) creates(n int) map[string]int {
	posts := map[string]int{}
	for _, r := range w.gh.Requests() {
		if r.Method != http.MethodPost {
			continue
		}
		switch {
		case r.Path == fmt.Sprintf("repos/Codertocat/Hello-World/issues/%d/comments", n):
			posts["comment"]++
		case r.Path == "repos/Codertocat/Hello-World/pulls" && bytes.Contains(r.Body, []byte(fmt.Sprintf(`"dixit/%d-pr"`, n))):
			posts["pull request"]++
		case r.Path == "repos/Codertocat/Hello-World/check-runs" && bytes.Contains(r.Body, []byte(apprun.RunID(issue(n)))):
			posts["check run"]++
		}
	}
	return posts
}

func issue(n int) app.Issue {
	return app.Issue{Installation: 7, Owner: "Codertocat", Repo: "Hello-World", Number: n}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// start runs a server process and waits until it answers.
func start(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd
}

// stop asks a server to stop, as a deployment does, and waits for it.
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the server did not stop: %s", cmd.Stdout)
	}
}

// deliverLabel sends the issue's labeled event until the server accepts it.
func deliverLabel(t *testing.T, addr string, n int, id string) {
	t.Helper()
	waitFor(t, func() bool { return tryDeliverLabel(addr, n, id) }, 30*time.Second, "the server accepts the delivery")
}

// tryDeliverLabel sends a signed issues.labeled delivery (GitHub's own example payload)
// once; it reports whether the server accepted it.
func tryDeliverLabel(addr string, n int, id string) bool {
	payload, err := os.ReadFile("../../internal/webhook/testdata/issues.labeled.json")
	if err != nil {
		panic(err)
	}
	var p map[string]any
	if err := json.Unmarshal(payload, &p); err != nil {
		panic(err)
	}
	p["installation"] = map[string]any{"id": 7}
	p["label"] = map[string]any{"name": "dixit"}
	p["issue"].(map[string]any)["number"] = n
	body, _ := json.Marshal(p)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		req, err := webhook.SignedRequest("http://"+addr+"/webhook", []byte(webhookSecret), "issues", id, body)
		if err != nil {
			panic(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			continue
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusAccepted
	}
	return false
}

func waitFor(t *testing.T, ok func() bool, limit time.Duration, what string) {
	t.Helper()
	for deadline := time.Now().Add(limit); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
	}
}

// hasPR reports whether issue n has its PR.
func hasPR(t *testing.T, gh *ghtest.Server, n int) bool {
	prs, _, err := gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	for _, pr := range prs {
		if pr.GetHead().GetRef() == fmt.Sprintf("dixit/%d-pr", n) {
			return true
		}
	}
	return false
}

// journal reads a run's journal from the workshop repository.
func journal(t *testing.T, git *gittest.Server, i app.Issue) [][]byte {
	ws, err := gitstate.Open(git.Path("Codertocat/Hello-World-dixit"))
	require.NoError(t, err)
	j, err := ws.Journal("refs/dixit/" + apprun.RunID(i) + "/journal")
	require.NoError(t, err)
	entries, err := j.Entries()
	require.NoError(t, err)
	return entries
}
