package serveconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func keyFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(p, []byte("-----BEGIN RSA PRIVATE KEY-----\n"), 0o600))
	return p
}

func TestTheCommentedExampleLoads(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("a-long-webhook-secret\n"), 0o600))
	data, err := os.ReadFile("../../deploy/dixit-serve.example.yml")
	require.NoError(t, err)
	example := filepath.Join(dir, "serve.yml")
	require.NoError(t, os.WriteFile(example, data, 0o644))

	c, err := Load(example, env(map[string]string{
		"DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET_FILE": secret, "DIXIT_WORKERS": "8",
	}))
	require.NoError(t, err)
	assert.Equal(t, int64(123456), c.GitHub.AppID)
	assert.Equal(t, "a-long-webhook-secret", c.GitHub.WebhookSecret, "read from the file, trimmed")
	assert.Equal(t, 8, c.Workers, "the environment wins over the file")
	assert.Equal(t, 30*time.Second, c.Shutdown)
	assert.True(t, c.WorkshopCreate)
	assert.Equal(t, 2*time.Minute, c.LeaseTTL)
	assert.Equal(t, 10*time.Minute, c.Reconcile)
}

func TestEnvironmentAlone(t *testing.T) {
	c, err := Load("", env(map[string]string{
		"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef",
	}))
	require.NoError(t, err)
	assert.Equal(t, Defaults().Label, c.Label)
	assert.Equal(t, "auto", c.Judge, "GitHub Actions where the workshop holds the workflow")
}

func TestBadConfigsSayWhatIsWrong(t *testing.T) {
	good := map[string]string{"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string
	}{
		{"no secret: refuse to start", "", with("DIXIT_WEBHOOK_SECRET", ""), "webhook secret of at least 16 characters is required"},
		{"short secret", "", with("DIXIT_WEBHOOK_SECRET", "short"), "at least 16 characters"},
		{"no app id", "", with("DIXIT_GITHUB_APP_ID", ""), "github.app_id"},
		{"app id not a number", "", with("DIXIT_GITHUB_APP_ID", "abc"), `DIXIT_GITHUB_APP_ID: must be a whole number (got "abc")`},
		{"missing key file", "", with("DIXIT_GITHUB_PRIVATE_KEY_FILE", "/nonexistent/key.pem"), "DIXIT_GITHUB_PRIVATE_KEY_FILE: cannot read /nonexistent/key.pem: no such file or directory"},
		{"unknown key", "lable: x\n", good, `line 1: unknown key "lable"; did you mean "label"?`},
		{"secret in YAML is refused", "github:\n  webhook_secret: abc\n", good, `line 2: unknown key "webhook_secret" in github; the keys here are app_id`},
		{"bad judge", "judge: cloud\n", good, "judge: must be auto, local or actions"},
		{"actions judge without a bot version", "judge: actions\n", good, "actions.bot_version"},
		{"actions judge with a version go cannot install", "judge: actions\nactions:\n  bot_version: latest; rm -rf /\n", good, "actions.bot_version"},
		{"a bot version go cannot install", "actions:\n  bot_version: \"$(id)\"\n", good, "actions.bot_version: not a version"},
		{"workshop without repo", "workshop: shared\n", good, "workshop: must contain {repo}"},
		{"base url without slash", "github:\n  base_url: https://ghe.example.com/api/v3\n", good, "must end with /"},
		{"workers", "workers: 0\n", good, "workers: must be between 1 and 64"},
		{"label", "label: \"a,b\"\n", good, "label: not a GitHub label name"},
		{"lease too short", "lease_ttl: 1s\n", good, "lease_ttl: must be between 10s and 1h"},
		{"reconcile too often", "reconcile_interval: 5s\n", good, "reconcile_interval: must be 0 (off) or between 1m and 24h"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				path = filepath.Join(t.TempDir(), "serve.yml")
				require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o644))
			}
			_, err := Load(path, env(tc.env))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// No App at all is its own outcome, which bot serve answers with the setup page; half an
// App is a mistake to fix, and so is any other bad setting.
func TestNoAppIsToldApartFromAHalfConfiguredOne(t *testing.T) {
	c, err := Load("", env(map[string]string{"DIXIT_LISTEN": "127.0.0.1:8081", "DIXIT_GITHUB_BASE_URL": "https://ghe.example.com/api/v3/"}))
	require.ErrorIs(t, err, ErrNoApp)
	assert.Contains(t, err.Error(), "bot serve --config FILE --public-url URL")
	assert.Equal(t, "127.0.0.1:8081", c.Listen, "the rest of the configuration comes back, for the setup page")
	assert.Equal(t, "https://ghe.example.com/api/v3/", c.GitHub.BaseURL)

	for name, vars := range map[string]map[string]string{
		"a key without an id":    {"DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t)},
		"a secret without an id": {"DIXIT_WEBHOOK_SECRET": "0123456789abcdef"},
		"no App and a bad URL":   {"DIXIT_GITHUB_BASE_URL": "ghe.example.com"},
	} {
		_, err := Load("", env(vars))
		require.Error(t, err, name)
		assert.NotErrorIs(t, err, ErrNoApp, name)
	}
}
