package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/appsetup/appsetuptest"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/webhook"
)

// lockedBuffer is the terminal of a bot serve running in a goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runServe runs bot serve with env in this process to its end.
func runServe(t *testing.T, env map[string]string, args ...string) error {
	t.Helper()
	root := newRoot(func(k string) string { return env[k] })
	root.SetArgs(append([]string{"serve"}, args...))
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	return root.ExecuteContext(ctx)
}

// startServe runs bot serve with env in this process until stop or the test's end.
func startServe(t *testing.T, env map[string]string, args ...string) (out *lockedBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out = &lockedBuffer{}
	root := newRoot(func(k string) string { return env[k] })
	root.SetArgs(append([]string{"serve"}, args...))
	root.SetOut(out)
	root.SetErr(out)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(cancel)
	return out, func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("bot serve did not stop")
			return nil
		}
	}
}

// post sends a webhook delivery, signed with secret unless it is empty, and returns the answer.
func post(t *testing.T, addr, secret string) (int, string) {
	req, err := webhook.SignedRequest("http://"+addr+"/webhook", []byte(secret), "ping", "d-ping", []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`))
	require.NoError(t, err)
	if secret == "" {
		req.Header.Del("X-Hub-Signature-256")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// A first start with --config not there yet serves the setup page on the server's address,
// writes the file with the App's key and secret beside it, and goes on serving with the
// new App's secret; started again, it reads the file and registers nothing.
func TestFirstServeRegistersTheAppThenServes(t *testing.T) {
	api := ghtest.NewServer(t)
	web := appsetuptest.NewWeb(t, api)
	addr := freeAddr(t)
	conf := filepath.Join(t.TempDir(), "etc", "serve.yml")
	env := map[string]string{
		"DIXIT_LISTEN": addr, "DIXIT_GITHUB_BASE_URL": api.URL, "DIXIT_GITHUB_GIT_URL": web.URL + "/",
		"DIXIT_STATE_DIR": t.TempDir(), "DIXIT_POPULATION": demoDir, "DIXIT_SANDBOX": "none", "DIXIT_METRICS_LISTEN": "off",
	}
	out, stop := startServe(t, env, "--config", conf, "--public-url", "http://"+addr)
	waitFor(t, func() bool {
		resp, err := http.Get("http://" + addr + "/setup")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 30*time.Second, "the setup page answers")

	status, page := appsetuptest.Register(t, "http://"+addr)
	require.Equal(t, http.StatusOK, status, page)
	assert.Contains(t, page, "The terminal running <code>bot serve</code> says what to do next")
	app := web.App()
	require.NotZero(t, app.ID)
	posted := web.Posted()
	require.Len(t, posted, 1)
	assert.Equal(t, "http://"+addr+"/webhook", posted[0].Manifest["hook_attributes"].(map[string]any)["url"], "the webhook is --public-url's")
	assert.Equal(t, "/settings/apps/new", posted[0].Page, "a personal account's App without --org")
	waitFor(t, func() bool { code, _ := post(t, addr, ""); return code == http.StatusUnauthorized }, 30*time.Second,
		"the server, not the setup page, answers: it refuses an unsigned delivery")
	code, body := post(t, addr, app.WebhookSecret)
	assert.Equal(t, http.StatusOK, code, "a delivery signed with the new App's secret is taken")
	assert.Contains(t, body, "pong")
	code, _ = post(t, addr, "another App's secret")
	assert.Equal(t, http.StatusUnauthorized, code)

	said := out.String()
	assert.Contains(t, said, "No GitHub App is configured: registering one, to be written to "+conf)
	assert.Contains(t, said, "GitHub's ping reached http://"+addr+"/webhook")
	assert.Contains(t, said, "bot serve goes on now with "+conf)
	written, err := os.ReadFile(conf)
	require.NoError(t, err)
	assert.Contains(t, string(written), fmt.Sprintf("app_id: %d\n", app.ID))
	assert.Contains(t, string(written), "private_key_file: "+filepath.Join(filepath.Dir(conf), "private-key.pem"))
	require.NoError(t, stop())

	// Started again: the file is there, so no page; the same App's deliveries are taken.
	_, stop = startServe(t, env, "--config", conf, "--public-url", "http://"+addr)
	waitFor(t, func() bool { code, _ := post(t, addr, app.WebhookSecret); return code == http.StatusOK }, 30*time.Second, "the restarted server takes the App's deliveries")
	resp, err := http.Get("http://" + addr + "/setup")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "no setup page once the App exists")
	assert.Len(t, web.Posted(), 1, "registered once")
	require.NoError(t, stop())
}

// A webhook GitHub does not reach yet is said, and the server starts all the same: the fix
// is in front of it, and it had better answer when the ping is redelivered.
func TestFirstServeGoesOnThoughTheWebhookIsNotReachedYet(t *testing.T) {
	api := ghtest.NewServer(t)
	web := appsetuptest.NewWeb(t, api)
	addr, elsewhere := freeAddr(t), "http://"+freeAddr(t)
	conf := filepath.Join(t.TempDir(), "serve.yml")
	env := map[string]string{
		"DIXIT_LISTEN": addr, "DIXIT_GITHUB_BASE_URL": api.URL, "DIXIT_GITHUB_GIT_URL": web.URL + "/",
		"DIXIT_STATE_DIR": t.TempDir(), "DIXIT_POPULATION": demoDir, "DIXIT_SANDBOX": "none", "DIXIT_METRICS_LISTEN": "off",
	}
	out, stop := startServe(t, env, "--config", conf, "--public-url", elsewhere, "--ping-wait", "300ms", "--org", "acme")
	waitFor(t, func() bool {
		resp, err := http.Get("http://" + addr + "/setup")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 30*time.Second, "the setup page answers")
	status, _ := appsetuptest.Register(t, "http://"+addr)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "/organizations/acme/settings/apps/new", web.Posted()[0].Page, "--org names the owner")
	waitFor(t, func() bool {
		return strings.Contains(out.String(), "serving, though GitHub's ping did not reach the webhook")
	}, 30*time.Second, "the warning")
	assert.Contains(t, out.String(), elsewhere+"/webhook does not lead to this server")
	secret := web.App().WebhookSecret
	waitFor(t, func() bool { code, _ := post(t, addr, secret); return code == http.StatusOK }, 30*time.Second, "the server takes the App's deliveries")
	require.NoError(t, stop())
}

func TestFirstServeSaysWhatItNeeds(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "serve.yml")
	base := map[string]string{"DIXIT_POPULATION": demoDir, "DIXIT_METRICS_LISTEN": "off", "DIXIT_LISTEN": freeAddr(t)}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range base {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no public URL", base, []string{"--config", conf},
			"--config " + conf + " is not there and no GitHub App is configured: add --public-url URL (DIXIT_PUBLIC_URL)"},
		{"no config file named", base, nil, "bot serve --config FILE --public-url URL, FILE not there yet"},
		{"an App configured otherwise", with("DIXIT_GITHUB_APP_ID", "42"), []string{"--config", conf, "--public-url", "https://d.example.com"},
			"--config " + conf + ": no such file or directory"},
		{"no model", with("DIXIT_POPULATION", ""), []string{"--config", conf, "--public-url", "https://d.example.com"},
			"no model: set OPENAI_API_KEY or OPENAI_BASE_URL, or population (DIXIT_POPULATION), then start again to register the App"},
		{"a public URL that is not one", base, []string{"--config", conf, "--public-url", "d.example.com"}, `--public-url "d.example.com": must be an address`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := runServe(t, c.env, c.args...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			_, statErr := os.Stat(conf)
			assert.ErrorIs(t, statErr, os.ErrNotExist, "nothing written")
		})
	}
}
