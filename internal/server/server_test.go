package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
	"github.com/dixit-bot/dixit/internal/serveconfig"
	"github.com/dixit-bot/dixit/internal/webhook"
)

func config(t *testing.T, gh *ghtest.Server) serveconfig.Config {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	env := map[string]string{
		"DIXIT_GITHUB_APP_ID": "99", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile, "DIXIT_WEBHOOK_SECRET": "a-test-webhook-secret",
		"DIXIT_GITHUB_BASE_URL": gh.URL, "DIXIT_STATE_DIR": t.TempDir(), "DIXIT_POPULATION": "../../examples/semver",
		"DIXIT_METRICS_LISTEN": "127.0.0.1:0",
	}
	cfg, err := serveconfig.Load("", func(k string) string { return env[k] })
	require.NoError(t, err)
	return cfg
}

func TestServeAnswersWebhooksAndProbesAndStopsCleanly(t *testing.T) {
	gh := ghtest.NewServer(t)
	s, err := New(config(t, gh), nil, nil)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()

	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 5*time.Second, 20*time.Millisecond)
	resp, err := http.Get(base + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	ping := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
	post := func(sig string) int {
		req, err := http.NewRequest(http.MethodPost, base+"/webhook", bytes.NewReader(ping))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "ping")
		req.Header.Set("X-GitHub-Delivery", "d-1")
		if sig != "" {
			req.Header.Set("X-Hub-Signature-256", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, post(webhook.Sign([]byte("a-test-webhook-secret"), ping)))
	assert.Equal(t, http.StatusUnauthorized, post(""))
	assert.Equal(t, http.StatusUnauthorized, post(webhook.Sign([]byte("another-secret-entirely"), ping)))

	resp, err = http.Get("http://" + s.MetricsAddr() + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), "dixit_webhook_rejected_signature_total 2")

	// The reconciler's first pass runs at start, as the App (a JWT), over every installation.
	require.Eventually(t, func() bool {
		for _, r := range gh.Requests() {
			if r.Method == http.MethodGet && r.Path == "app/installations" && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
				return true
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "the reconciler looked for missed work")

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop")
	}
}

func TestServeRefusesToStartWithoutAModel(t *testing.T) {
	cfg := config(t, ghtest.NewServer(t))
	cfg.Population = ""
	_, err := New(cfg, nil, nil)
	assert.ErrorContains(t, err, "no model")
}

// TestServeRunsALabelledIssueToItsPullRequest is the App as a user installs it: `bot serve`
// wired from its configuration (App JWT, installation tokens, the webhook over real HTTP)
// against the fake GitHub and a git host serving the repository and its empty private
// workshop; the scripted population stands in for the model.
func TestServeRunsALabelledIssueToItsPullRequest(t *testing.T) {
	const demo = "../../examples/semver"
	gh := ghtest.NewServer(t)
	git := gittest.NewServer(t)
	git.Accept = func(token string) bool { return strings.HasPrefix(token, "ghs_fake_7_") } // tokens the fake issued to installation 7
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
	gh.State.AddIssue("Codertocat", "Hello-World", 1, "Compare semantic versions", string(spec))
	gh.State.SetFile("Codertocat", "Hello-World", "main", ".github/dixit.yml", string(settings))

	cfg := config(t, gh)
	cfg.GitHub.GitURL = git.URL + "/"
	cfg.BuildCache = filepath.Join(os.TempDir(), "dixit-test-gocache")
	cfg.ResultCache = os.Getenv("DIXIT_TEST_RESULTS") // CI shares verdicts across packages
	s, err := New(cfg, nil, nil)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})

	payload, err := os.ReadFile("../webhook/testdata/issues.labeled.json")
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(payload, &p))
	p["installation"] = map[string]any{"id": 7}
	p["label"] = map[string]any{"name": "dixit"}
	body, err := json.Marshal(p)
	require.NoError(t, err)
	req, err := webhook.SignedRequest("http://"+ln.Addr().String()+"/webhook", []byte("a-test-webhook-secret"), "issues", "delivery-1", body)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		resp, err := http.DefaultClient.Do(req.Clone(ctx))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusAccepted
	}, 10*time.Second, 50*time.Millisecond, "the server accepts the signed delivery")

	var prs []*github.PullRequest
	require.Eventually(t, func() bool {
		prs, _, err = gh.Client(nil).PullRequests.List(ctx, "Codertocat", "Hello-World", nil)
		return err == nil && len(prs) == 1
	}, 5*time.Minute, 200*time.Millisecond, "the run ends with its pull request")
	assert.Equal(t, "dixit/1-pr", prs[0].GetHead().GetRef())
	assert.Contains(t, prs[0].GetBody(), "**Outcome: TESTERS_EXHAUSTED**")
	comments := gh.State.Comments("Codertocat", "Hello-World", 1)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0], "### Dixit: TESTERS_EXHAUSTED")
	assert.Contains(t, git.Refs("Codertocat/Hello-World-dixit"), "refs/heads/dixit/1/amber", "the coders' branches are in the workshop")
	for _, tok := range gh.State.Tokens() {
		assert.True(t, strings.HasPrefix(tok.Authorization, "Bearer "), "installation tokens are fetched with the App's JWT")
	}
	assert.NotEmpty(t, gh.State.Tokens())
}
