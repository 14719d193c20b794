package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
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

	resp, err = http.Get(base + "/metrics")
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
