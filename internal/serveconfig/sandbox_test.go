package serveconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandboxIsBwrapUnlessNoneIsChosen: the server never runs tests without a sandbox
// unless its operator wrote so, and "auto" (the CLI's fallback) is not a server's choice.
func TestSandboxIsBwrapUnlessNoneIsChosen(t *testing.T) {
	good := map[string]string{"DIXIT_GITHUB_APP_ID": "42", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile(t), "DIXIT_WEBHOOK_SECRET": "0123456789abcdef"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range good {
			m[a] = b
		}
		return m
	}
	tests := []struct {
		name, yaml string
		env        map[string]string
		want       string // the sandbox, or the error
	}{
		{"default", "", good, "bwrap"},
		{"none in the file", "sandbox: none\n", good, "none"},
		{"none from the environment", "sandbox: bwrap\n", with("DIXIT_SANDBOX", "none"), "none"},
		{"auto is refused", "sandbox: auto\n", good,
			`serve.yml line 1: sandbox: must be bwrap or none (got "auto"): a server never falls back to running tests without a sandbox by itself`},
		{"a typo from the environment names the variable", "", with("DIXIT_SANDBOX", "nope"),
			`DIXIT_SANDBOX: must be bwrap or none (got "nope")`},
		{"a typo in the key", "sanbox: none\n", good, `serve.yml line 1: unknown key "sanbox"; did you mean "sandbox"?`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.yaml != "" {
				path = filepath.Join(t.TempDir(), "serve.yml")
				require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o644))
			}
			c, err := Load(path, env(tc.env))
			if tc.want == "bwrap" || tc.want == "none" {
				require.NoError(t, err)
				assert.Equal(t, tc.want, c.Sandbox)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
