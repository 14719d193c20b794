package main

import (
	"bytes"
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
	bin := buildBot(t)
	const demo = "../../examples/semver"
	gh, git := ghtest.NewServer(t), gittest.NewServer(t)
	git.Accept = func(token string) bool { return strings.HasPrefix(token, "ghs_fake_7_") || token == git.Token }
	files := gittest.ReadDir(t, filepath.Join(demo, "base"))
	settings, err := os.ReadFile(filepath.Join(demo, "dixit.yml"))
	require.NoError(t, err)
	files[".github/dixit.yml"] = string(settings)
	git.Repo("Codertocat/Hello-World", "main", files)
	git.EmptyRepo("Codertocat/Hello-World-dixit")
	spec, err := os.ReadFile(filepath.Join(demo, "spec.md"))
	require.NoError(t, err)
	gh.State.AddInstallation(7, "Codertocat")
	gh.State.AddRepo("Codertocat", "Hello-World", false, 7)
	gh.State.AddRepo("Codertocat", "Hello-World-dixit", true, 7)
	for n := 1; n <= 3; n++ {
		gh.State.AddIssue("Codertocat", "Hello-World", n, "Compare semantic versions", string(spec))
	}
	gh.State.SetFile("Codertocat", "Hello-World", "main", ".github/dixit.yml", string(settings))

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	state := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	serve := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "DIXIT_GITHUB_APP_ID=99", "DIXIT_GITHUB_PRIVATE_KEY_FILE="+keyFile,
			"DIXIT_WEBHOOK_SECRET="+webhookSecret, "DIXIT_GITHUB_BASE_URL="+gh.URL, "DIXIT_GITHUB_GIT_URL="+git.URL+"/",
			"DIXIT_STATE_DIR="+state, "DIXIT_POPULATION="+demo, "DIXIT_LISTEN="+addr, "DIXIT_NAME=kill-test",
			"DIXIT_BUILD_CACHE="+filepath.Join(os.TempDir(), "dixit-test-gocache"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	issue := func(n int) app.Issue {
		return app.Issue{Installation: 7, Owner: "Codertocat", Repo: "Hello-World", Number: n}
	}
	ended := func(n int) bool {
		c := gh.State.Comments("Codertocat", "Hello-World", n)
		return len(c) > 0 && strings.Contains(c[0], "### Dixit: TESTERS_EXHAUSTED") && prOf(t, gh, n) != ""
	}

	// Issues 1 and 3, uninterrupted: how a run ends, and (the second time, with every
	// verdict cached) how long it takes.
	srv := start(t, serve())
	deliverLabel(t, addr, 1, "d-1")
	waitFor(t, func() bool { return ended(1) }, 5*time.Minute, "issue 1 ends")
	began := time.Now()
	deliverLabel(t, addr, 3, "d-3")
	waitFor(t, func() bool { return ended(3) }, 5*time.Minute, "issue 3 ends")
	span := time.Since(began)
	stop(t, srv)
	whole := journal(t, git, issue(1))
	require.Len(t, journal(t, git, issue(3)), len(whole), "two uninterrupted runs journal alike")
	t.Logf("an uninterrupted run: %d journal entries", len(whole))
	seed := uint64(time.Now().UnixNano())
	rng := mathrand.New(mathrand.NewPCG(seed, 2))
	t.Logf("a run takes about %s; kill delays seeded with %d", span.Round(time.Millisecond), seed)

	accepted, kills, want := false, 0, killsWanted(6)
	for !ended(2) {
		srv := start(t, serve())
		if !accepted {
			accepted = tryDeliverLabel(addr, 2, "d-2")
		}
		if kills >= want {
			waitFor(t, func() bool { return ended(2) }, 5*time.Minute, "issue 2 ends after the last kill")
			stop(t, srv)
			break
		}
		time.Sleep(time.Duration(rng.Int64N(int64(span))))
		if ended(2) {
			stop(t, srv)
			break
		}
		require.NoError(t, syscall.Kill(-srv.Process.Pid, syscall.SIGKILL))
		_ = srv.Wait()
		kills++
	}
	t.Logf("%d kills", kills)
	assert.GreaterOrEqual(t, kills, want)

	// The same end, paid once.
	c1, c2 := gh.State.Comments("Codertocat", "Hello-World", 1), gh.State.Comments("Codertocat", "Hello-World", 2)
	require.Len(t, c2, 1, "one status comment")
	vetted := regexp.MustCompile(`\*\*\d+ vetted tests\*\*`)
	assert.Equal(t, vetted.FindString(c1[0]), vetted.FindString(c2[0]), "no vetted test lost")
	assert.Len(t, journal(t, git, issue(2)), len(whole), "no effect journalled twice")
	posts := map[string]int{}
	for _, r := range gh.Requests() {
		if r.Method != http.MethodPost {
			continue
		}
		switch {
		case r.Path == "repos/Codertocat/Hello-World/issues/2/comments":
			posts["comment"]++
		case r.Path == "repos/Codertocat/Hello-World/pulls" && bytes.Contains(r.Body, []byte(`"dixit/2-pr"`)):
			posts["pull request"]++
		case r.Path == "repos/Codertocat/Hello-World/check-runs" && bytes.Contains(r.Body, []byte(apprun.RunID(issue(2)))):
			posts["check run"]++
		}
	}
	assert.Equal(t, map[string]int{"comment": 1, "pull request": 1, "check run": 1}, posts, "each created once")
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

// prOf is the head branch of the issue's PR, if it has one.
func prOf(t *testing.T, gh *ghtest.Server, n int) string {
	prs, _, err := gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	for _, pr := range prs {
		if pr.GetHead().GetRef() == fmt.Sprintf("dixit/%d-pr", n) {
			return pr.GetHead().GetRef()
		}
	}
	return ""
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
