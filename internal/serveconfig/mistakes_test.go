package serveconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMistakesReadPlainly pins the exact message for the mistakes people make in the
// serve config and its DIXIT_* variables.
func TestMistakesReadPlainly(t *testing.T) {
	good := map[string]string{"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range good {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name, yaml string
		env        map[string]string
		want       string
	}{
		{"typo at the top", "worker: 8\n", good,
			`serve.yml line 1: unknown key "worker"; did you mean "workers"?`},
		{"typo in a section", "github:\n  appid: 5\n", good,
			`serve.yml line 2: unknown key "appid" in github; did you mean "app_id"?`},
		{"the secret itself in the file", "github:\n  webhook_secret: abcdefghijklmnopq\n", good,
			`serve.yml line 2: unknown key "webhook_secret" in github; the keys here are app_id, private_key_file, webhook_secret_file, base_url, git_url`},
		{"a word for a number", "workers: lots\n", good,
			`serve.yml line 1: workers: must be a whole number (got "lots")`},
		{"duration without a unit", "lease_ttl: 120\n", good,
			`serve.yml line 1: lease_ttl: must be a duration with a unit, such as 120s or 120m (got 120)`},
		{"duration in words", "shutdown_grace: 30 seconds\n", good,
			`serve.yml line 1: shutdown_grace: must be a duration such as 90s, 5m or 1h (got "30 seconds")`},
		{"negative retries", "actions:\n  retries: -1\n", good,
			`serve.yml line 2: actions.retries: must be 0 or more (got -1)`},
		{"a bool that is not one", "workshop_create: sure\n", good,
			`serve.yml line 1: workshop_create: must be true or false (got "sure")`},
		{"unknown judge", "judge: cloud\n", good,
			`serve.yml line 1: judge: must be auto, local or actions (got "cloud")`},
		{"a URL where a section is wanted", "github: https://ghe.example.com/\n", good,
			`serve.yml line 1: github: must be a section of keys (got "https://ghe.example.com/")`},
		{"tab indentation", "github:\n  app_id: 1\n\tprivate_key_file: /k.pem\n", good,
			`serve.yml line 3: indented with a tab; indent with spaces only`},
		{"out of range in the file", "label: dixit\nworkers: 100\n", good,
			`serve.yml line 2: workers: must be between 1 and 64 (got 100)`},
		{"variable not a number", "", with("DIXIT_WORKERS", "abc"),
			`DIXIT_WORKERS: must be a whole number (got "abc")`},
		{"variable not a duration", "", with("DIXIT_LEASE_TTL", "90"),
			`DIXIT_LEASE_TTL: must be a duration such as 90s, 5m or 1h (got "90")`},
		{"variable out of range names the variable, not the file", "workers: 4\n", with("DIXIT_WORKERS", "0"),
			`DIXIT_WORKERS: must be between 1 and 64 (got 0)`},
		{"no app id", "", with("DIXIT_GITHUB_APP_ID", ""),
			`github.app_id (DIXIT_GITHUB_APP_ID) is required`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				dir := t.TempDir()
				path = filepath.Join(dir, "serve.yml")
				require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o644))
			}
			_, err := Load(path, env(tc.env))
			require.Error(t, err)
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			assert.Equal(t, tc.want, msg)
			for _, w := range []string{"serveconfig.", "time.Duration", "!!", "unmarshal", "yaml:", "strconv", "int64"} {
				assert.NotContains(t, msg, w)
			}
		})
	}
}

// Zero turns the reconcile pass off, as the example file says; it needs no unit.
func TestZeroDurationNeedsNoUnit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "serve.yml")
	require.NoError(t, os.WriteFile(p, []byte("reconcile_interval: 0\nworkshop_create: no\n"), 0o644))
	c, err := Load(p, env(map[string]string{"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef"}))
	require.NoError(t, err)
	assert.Equal(t, time.Duration(0), c.Reconcile)
	assert.False(t, c.WorkshopCreate)
}

// The example file and the judge: actions error name DIXIT_ACTIONS_BOT_VERSION; it is read.
func TestBotVersionFromTheEnvironment(t *testing.T) {
	c, err := Load("", env(map[string]string{
		"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef",
		"DIXIT_JUDGE": "actions", "DIXIT_ACTIONS_BOT_VERSION": "v0.4.0",
	}))
	require.NoError(t, err)
	assert.Equal(t, "v0.4.0", c.Actions.BotVersion)
}
