package appsetup

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/deploy"
	"github.com/dixit-bot/dixit/internal/appsetup/appsetuptest"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/serveconfig"
)

type flow struct {
	web    *appsetuptest.Web
	api    *ghtest.Server
	base   string // the setup server, as the browser reaches it
	out    bytes.Buffer
	result chan error
	cancel context.CancelFunc
}

// startSetup runs the setup server with opts; an empty PublicURL means the setup's own address.
func startSetup(t *testing.T, opts Options, tweak func(*appsetuptest.Web)) *flow {
	t.Helper()
	api := ghtest.NewServer(t)
	f := &flow{api: api, web: appsetuptest.NewWeb(t, api), result: make(chan error, 1)}
	if tweak != nil {
		tweak(f.web)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f.base = "http://" + ln.Addr().String()
	if opts.PublicURL == "" {
		opts.PublicURL = f.base
	}
	opts.GitHubURL, opts.APIURL, opts.Listen = f.web.URL+"/", api.URL, ln.Addr().String()
	if opts.PingWait == 0 {
		opts.PingWait = 2 * time.Second
	}
	s, err := New(opts, deploy.AppManifest, deploy.AppOptions, nil, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	f.cancel = cancel
	go func() { f.result <- s.Run(ctx, ln, &f.out) }()
	t.Cleanup(cancel)
	return f
}

// register is the person: open the page, press the button, land on the result page.
func (f *flow) register(t *testing.T) (status int, page string) {
	t.Helper()
	return appsetuptest.Register(t, f.base)
}

func (f *flow) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-f.result:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("bot setup did not finish")
		return nil
	}
}

func TestRegistersTheAppAndWritesWhatServeReads(t *testing.T) {
	cases := []struct {
		name, org  string
		features   Features
		page       string
		permission string // one more than the default install's, or none
	}{
		{"personal account, least privilege", "", nil, "/settings/apps/new", ""},
		{"organization, creating workshops", "acme", Features{WorkshopCreate}, "/organizations/acme/settings/apps/new", "administration"},
		{"actions judge", "acme", Features{ActionsJudge}, "/organizations/acme/settings/apps/new", "actions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dixit")
			f := startSetup(t, Options{Org: c.org, Features: c.features, Out: dir}, nil)
			status, page := f.register(t)
			assert.Equal(t, http.StatusOK, status, page)
			assert.Contains(t, page, "is registered")
			require.NoError(t, f.wait(t), f.out.String())

			posted := f.web.Posted()
			require.Len(t, posted, 1)
			m := posted[0].Manifest
			assert.Equal(t, c.page, posted[0].Page)
			assert.Equal(t, f.base+"/webhook", m["hook_attributes"].(map[string]any)["url"])
			assert.Equal(t, f.base+"/setup/callback", m["redirect_url"], "the code comes back to this server")
			perms := m["default_permissions"].(map[string]any)
			want := []string{"metadata", "issues", "pull_requests", "contents", "checks"}
			if c.permission != "" {
				want = append(want, c.permission)
			}
			assert.ElementsMatch(t, want, keys(perms))
			assert.Equal(t, c.permission == "actions", contains(m["default_events"], "workflow_run"), "workflow_run comes with the actions judge")

			var app ghtest.ManifestApp
			for _, a := range f.api.State.ManifestApps() {
				app = a
			}
			assert.True(t, app.Converted, "the code was exchanged")
			cfg, err := serveconfig.Load(filepath.Join(dir, "serve.yml"), func(string) string { return "" })
			require.NoError(t, err, "bot serve --config takes what setup wrote")
			assert.Equal(t, app.ID, cfg.GitHub.AppID)
			assert.Equal(t, app.WebhookSecret, cfg.GitHub.WebhookSecret)
			assert.Equal(t, f.api.URL, cfg.GitHub.BaseURL)
			assert.Equal(t, f.web.URL+"/", cfg.GitHub.GitURL)
			assert.Equal(t, c.permission == "administration", cfg.WorkshopCreate, "workshop_create follows the permission")
			assert.Equal(t, strings.TrimPrefix(f.base, "http://"), cfg.Listen, "bot serve listens where --public-url leads")
			key, err := os.ReadFile(cfg.GitHub.PrivateKeyFile)
			require.NoError(t, err)
			assert.Equal(t, app.PEM, string(key))
			for _, p := range []string{cfg.GitHub.PrivateKeyFile, cfg.GitHub.SecretFile} {
				info, err := os.Stat(p)
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "%s is readable by its owner only", p)
			}

			out := f.out.String()
			assert.Contains(t, out, "https://github.com/apps/"+app.Slug+"/installations/new", "the install URL")
			assert.Contains(t, out, "bot serve --config "+filepath.Join(dir, "serve.yml"), "the next command")
			assert.Contains(t, out, "GitHub's ping reached "+f.base+"/webhook")
			assert.NotContains(t, out, app.WebhookSecret, "a secret written to a file is not printed")
		})
	}
}

func TestWithoutOutTheCredentialsArePrintedOnce(t *testing.T) {
	f := startSetup(t, Options{}, nil)
	status, _ := f.register(t)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, f.wait(t))
	var app ghtest.ManifestApp
	for _, a := range f.api.State.ManifestApps() {
		app = a
	}
	out := f.out.String()
	assert.Contains(t, out, fmt.Sprintf("DIXIT_GITHUB_APP_ID=%d\n", app.ID))
	assert.Contains(t, out, "DIXIT_WEBHOOK_SECRET="+app.WebhookSecret+"\n")
	assert.Contains(t, out, strings.TrimSpace(app.PEM))
	assert.Equal(t, 1, strings.Count(out, strings.TrimSpace(app.PEM)), "printed once")
}

func TestWithoutTheCheckAServerElsewhereIsNotAsked(t *testing.T) {
	f := startSetup(t, Options{PublicURL: "https://dixit.invalid", NoCheck: true, Out: t.TempDir()}, func(w *appsetuptest.Web) { w.NoPing = true })
	status, _ := f.register(t)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, f.wait(t), "the webhook is not checked")
	assert.Regexp(t, `Webhook: not checked\. Once bot serve answers https://dixit.invalid/webhook, redeliver the ping from http://\S+/settings/apps/dixit/advanced`, f.out.String())
}

// A relay such as smee forwards GitHub's POSTs and answers GETs itself: the signed ping
// is proof enough.
func TestARelayThatForwardsOnlyPostsPasses(t *testing.T) {
	var target string
	relay := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			_, _ = io.WriteString(w, "<html>the relay's own page</html>")
			return
		}
		req, _ := http.NewRequest(r.Method, target+r.URL.Path, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	}))
	t.Cleanup(relay.Close)
	f := startSetup(t, Options{PublicURL: relay.URL}, nil)
	target = f.base
	status, _ := f.register(t)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, f.wait(t))
	assert.Contains(t, f.out.String(), "GitHub's ping reached "+relay.URL+"/webhook")
}

func TestRegistrationProblemsSayWhatToChange(t *testing.T) {
	t.Run("webhook URL leads elsewhere", func(t *testing.T) {
		closed, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		elsewhere := "http://" + closed.Addr().String()
		closed.Close()
		f := startSetup(t, Options{PublicURL: elsewhere, PingWait: 300 * time.Millisecond}, nil)
		status, _ := f.register(t)
		assert.Equal(t, http.StatusOK, status, "the App is registered all the same")
		err = f.wait(t)
		require.Error(t, err)
		assert.Contains(t, err.Error(), elsewhere+"/webhook does not lead to this server")
		assert.Contains(t, err.Error(), "make --public-url the address that reaches --listen")
	})
	t.Run("GitHub's ping failed", func(t *testing.T) {
		f := startSetup(t, Options{PingWait: 300 * time.Millisecond, Org: "acme"}, func(w *appsetuptest.Web) { w.NoPing = true })
		f.register(t)
		err := f.wait(t)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `got "Invalid HTTP Response: 502" (status 502), per GET /app/hook/deliveries`)
		assert.Contains(t, err.Error(), "/organizations/acme/settings/apps/", "it points at the App's Advanced tab")
	})
	t.Run("expired code", func(t *testing.T) {
		f := startSetup(t, Options{}, func(w *appsetuptest.Web) { w.BadCode = true })
		status, page := f.register(t)
		assert.Equal(t, http.StatusBadGateway, status)
		assert.Contains(t, page, "it expired (a code lasts one hour) or was used already")
		f.cancel()
		assert.ErrorContains(t, f.wait(t), "setup stopped before the App was registered")
	})
	t.Run("credentials already there", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "private-key.pem"), []byte("another App's"), 0o600))
		f := startSetup(t, Options{Out: dir}, nil)
		status, page := f.register(t)
		assert.Equal(t, http.StatusBadGateway, status)
		assert.Contains(t, page, "private-key.pem exists already")
		assert.Contains(t, page, "choose another --out")
		data, _ := os.ReadFile(filepath.Join(dir, "private-key.pem"))
		assert.Equal(t, "another App's", string(data), "never overwritten")
		err := f.wait(t)
		assert.ErrorContains(t, err, "its credentials were not saved")
		var app ghtest.ManifestApp
		for _, a := range f.api.State.ManifestApps() {
			app = a
		}
		assert.Contains(t, f.out.String(), strings.TrimSpace(app.PEM), "printed rather than lost: GitHub never shows the key again")
	})
	t.Run("bot serve's credentials already there", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "webhook-secret"), []byte("another App's"), 0o600))
		f := startSetup(t, Options{ServeConfig: filepath.Join(dir, "dixit.yml")}, nil)
		status, page := f.register(t)
		assert.Equal(t, http.StatusBadGateway, status)
		assert.Contains(t, page, "webhook-secret exists already (another App&#39;s credentials?): choose another --config or move it away")
		assert.Contains(t, page, "printed once in the terminal running bot serve instead")
		assert.ErrorContains(t, f.wait(t), "its credentials were not saved")
		_, err := os.Stat(filepath.Join(dir, "dixit.yml"))
		assert.ErrorIs(t, err, os.ErrNotExist, "no configuration naming a secret that is not the App's")
		_, err = os.Stat(filepath.Join(dir, "private-key.pem"))
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing written unless all is: a rerun finds the directory as it was")
	})
	t.Run("callback not from this page", func(t *testing.T) {
		f := startSetup(t, Options{}, nil)
		resp, err := http.Get(f.base + "/setup/callback?code=abc&state=forged")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Empty(t, f.api.Requests(), "a forged callback exchanges nothing")
	})
}

func TestOptionErrorsNameTheFlag(t *testing.T) {
	cases := []struct {
		opts Options
		want string
	}{
		{Options{}, "--public-url is required"},
		{Options{PublicURL: "dixit.example.com"}, `--public-url "dixit.example.com": must be an address such as https://`},
		{Options{PublicURL: "https://d.example.com", Org: "acme corp"}, `--org "acme corp": not a GitHub organization name`},
		{Options{PublicURL: "https://d.example.com", GitHubURL: "github.example.com"}, `--github-url "github.example.com"`},
		{Options{PublicURL: "https://d.example.com", Features: Features{"admin"}}, `no opt-in "admin" in the manifest options (known: actions-judge, workshop-create)`},
	}
	for _, c := range cases {
		_, err := New(c.opts, deploy.AppManifest, deploy.AppOptions, nil, nil)
		assert.ErrorContains(t, err, c.want)
	}
}

func TestGitHubEnterpriseServerURLs(t *testing.T) {
	e, err := Options{PublicURL: "https://d.example.com/", GitHubURL: "https://ghe.example.com"}.resolve()
	require.NoError(t, err)
	assert.Equal(t, "https://ghe.example.com/api/v3/", e.api)
	assert.Equal(t, "https://ghe.example.com/", e.git)
	assert.Equal(t, "https://d.example.com/webhook", e.hook)
	assert.Equal(t, "https://ghe.example.com/organizations/acme/settings/apps/new?state=s", NewAppURL(e.web, "acme", "s"))
	e, err = Options{PublicURL: "https://d.example.com"}.resolve()
	require.NoError(t, err)
	assert.Equal(t, "https://api.github.com/", e.api)
	assert.Equal(t, "https://github.com/settings/apps/new?state=s", NewAppURL(e.web, "", "s"))
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func contains(list any, v string) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}
