package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/cli"
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
		{"live run without an endpoint", []string{"run", "--spec", filepath.Join(bad, "spec.md")}, "no LLM endpoint configured"},
		{"missing spec", []string{"run", "--spec", "nope.md"}, "--spec nope.md: no such file or directory"},
		{"spec is a directory", []string{"run", "--spec", bad}, "--spec " + bad + ": a directory, not a file"},
		{"bad sandbox", []string{"demo", "--sandbox", "docker"}, "--sandbox docker: want auto, bwrap or none"},
		{"stray argument", []string{"demo", "now"}, `demo: unexpected argument "now"`},
		{"typo in a command", []string{"dmeo"}, `unknown command "dmeo"; did you mean "demo"?`},
		{"decide without a decision", []string{"decide", "semver-1"}, "give a run id and a decision"},
		{"missing population", []string{"run", "--population", filepath.Join(bad, "nope")}, "--population " + filepath.Join(bad, "nope") + ": no such file or directory"},
		{"malformed population", []string{"run", "--population", bad, "--state", t.TempDir()}, "dixit.yml"},
		{"bad flag", []string{"demo", "--reruns", "3"}, "unknown flag: --reruns"},
		{"typo in a flag", []string{"run", "--stat", "x"}, "unknown flag: --stat; did you mean --state?"},
		{"long flag with one dash", []string{"demo", "-sandbox", "none"}, "did you mean --sandbox?"},
		{"repo that is not a git repository, before any model check", []string{"run", "--spec", filepath.Join(bad, "spec.md"), "--repo", bad}, "--repo " + bad + " is not a git repository"},
		{"broken settings, before any model check", []string{"run", "--spec", filepath.Join(bad, "spec.md"), "--config", filepath.Join(bad, "spec.md")}, "--config " + filepath.Join(bad, "spec.md") + ":"},
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

// TestVerboseOnEveryCommand: docs/cli.md says -v is --verbose everywhere; every
// command's help lists it.
func TestVerboseOnEveryCommand(t *testing.T) {
	root := newRoot(func(string) string { return "" })
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		f := c.Flags().ShorthandLookup("v")
		if assert.NotNil(t, f, "bot %s has no -v", c.Name()) {
			assert.Equal(t, "verbose", f.Name, "bot %s", c.Name())
		}
	}
}

// TestHelpVersionAndExitCodes: help and the version exit 0 on stdout; mistakes on the
// command line exit 2 with a pointer to the command's help; other errors exit 1.
func TestHelpVersionAndExitCodes(t *testing.T) {
	bot := func(args ...string) (stdout, stderr string, code int) {
		var out, errOut bytes.Buffer
		code = cli.ExitCode(run(context.Background(), args, &out, &errOut), &errOut)
		return out.String(), errOut.String(), code
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, _, code := bot(args...)
		assert.Equal(t, 0, code, args)
		assert.Regexp(t, `^bot \S+ .*go1\.\d+`, out, args)
	}
	for _, args := range [][]string{{"help", "run"}, {"run", "--help"}, {"run", "-h"}} {
		out, _, code := bot(args...)
		assert.Equal(t, 0, code, args)
		assert.Contains(t, out, "Usage:\n  bot run (--spec FILE [--repo DIR] | --population DIR | --resume RUN) [flags]", args)
		assert.Contains(t, out, "--state DIR ", "flags show their value names, not Go types")
		assert.NotContains(t, out, " string ", "no flag shows a Go type as its value")
	}
	out, _, code := bot("help")
	assert.Equal(t, 0, code)
	for _, c := range []string{"demo", "run", "vet", "decide", "eval", "serve", "classify", "completion"} {
		assert.Regexp(t, `(?m)^  `+c+` +\S`, out, "bot help lists %s with its synopsis", c)
	}
	out, _, code = bot("completion", "bash")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "__start_bot")

	_, errOut, code := bot("demo", "--rerun", "3")
	assert.Equal(t, cli.ExitUsage, code)
	assert.Equal(t, "bot: unknown flag: --rerun\nRun 'bot demo --help' for usage.\n", errOut)
	_, errOut, code = bot()
	assert.Equal(t, cli.ExitUsage, code)
	assert.Contains(t, errOut, "bot: missing command\nRun 'bot --help' for usage.\n")
	_, errOut, code = bot("decide", "--state", t.TempDir(), "nope-1", "wake")
	assert.Equal(t, cli.ExitError, code)
	assert.Contains(t, errOut, "bot: decide: no such run nope-1 under ")
	assert.NotContains(t, errOut, "--help", "not a usage mistake")
}

// A run the judge cannot start on this machine (a module it cannot download) is an error
// a script sees: exit 1, the outcome names what to change, and no agent worked.
func TestAnEnvironmentFailureExitsOne(t *testing.T) {
	pop := filepath.Join(t.TempDir(), "semver")
	require.NoError(t, os.CopyFS(pop, os.DirFS("../../examples/semver")))
	base := filepath.Join(pop, "base")
	require.NoError(t, os.WriteFile(filepath.Join(base, "go.mod"),
		[]byte("module example.com/semver\n\ngo 1.22\n\nrequire example.com/dixit/missingdep v1.0.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "dep.go"),
		[]byte("package semver\n\nimport _ \"example.com/dixit/missingdep\"\n"), 0o644))
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"run", "--population", pop, "--state", t.TempDir(),
		"--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache")}, &out, &errOut)
	assert.Equal(t, cli.ExitError, cli.ExitCode(err, &errOut), out.String())
	assert.Contains(t, out.String(), "Outcome: ENVIRONMENT")
	assert.Contains(t, out.String(), "example.com/dixit/missingdep")
	assert.Contains(t, out.String(), "0 rounds", "no agent worked")
	assert.Contains(t, errOut.String(), "bot: the judge cannot build and test the base revision here")
}
