package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandLineErrorsSayWhatToDo(t *testing.T) {
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "spec.md"), []byte("x"), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "missing command"},
		{"unknown command", []string{"serve-all"}, `unknown command "serve-all"`},
		{"run without a spec or population", []string{"run"}, "give --spec FILE"},
		{"live run without an endpoint", []string{"run", "--spec", "spec.md"}, "no LLM endpoint configured"},
		{"missing population", []string{"run", "--population", filepath.Join(bad, "nope")}, "--population " + filepath.Join(bad, "nope") + ": no such file or directory"},
		{"malformed population", []string{"run", "--population", bad, "--state", t.TempDir()}, "dixit.yml"},
		{"bad flag", []string{"demo", "--reruns", "3"}, "unknown flag: --reruns"},
		{"serve without secrets", []string{"serve"}, "github.app_id (DIXIT_GITHUB_APP_ID) is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			t.Setenv("OPENAI_API_KEY", "")
			t.Setenv("OPENAI_BASE_URL", "")
			err := run(context.Background(), tc.args, &out, &errOut)
			require.Error(t, err)
			assert.Contains(t, err.Error()+errOut.String(), tc.want)
		})
	}
}

func TestDemoIsFoundFromASubdirectory(t *testing.T) {
	got, err := findDemo()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("..", "..", "examples", "semver"), got)
}
