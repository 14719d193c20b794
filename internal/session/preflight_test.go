package session_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
)

// copyPopulation copies an example population into a fresh directory the test may edit.
func copyPopulation(t *testing.T, from string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(from))
	require.NoError(t, exec.Command("cp", "-r", from, dir).Run())
	return dir
}

// runEnvironmentCase runs a population and checks it stopped at preflight: ENVIRONMENT,
// no agent called, the reason and summary.json naming what is missing.
func runEnvironmentCase(t *testing.T, pop, missing string) {
	t.Helper()
	var shown strings.Builder
	state := t.TempDir()
	out, err := session.Run(context.Background(), session.Options{
		Population: pop, StateDir: state, BuildCache: buildCache, RunID: "env", Host: session.Terminal{Out: &shown},
	})
	require.NoError(t, err)
	assert.Equal(t, orchestrate.Environment, out.Result.Outcome)
	assert.Contains(t, out.Result.Reason, missing)
	// What a person reads at the end: the hint once, in a line under 300 characters.
	out.Print(&shown, state, true)
	assert.Less(t, utf8.RuneCountInString(out.Result.Reason), 300, out.Result.Reason)
	assert.Equal(t, 1, strings.Count(shown.String(), out.Summary.Preflight.Hint), shown.String())
	assert.Contains(t, shown.String(), "Outcome: ENVIRONMENT — the judge could not build and test the base revision here")
	for _, ev := range out.Result.Events {
		assert.Equal(t, orchestrate.EvEscalate, ev.Kind, "no agent was called")
	}
	assert.Zero(t, out.Result.Live)

	var sum runfile.Summary
	data, err := os.ReadFile(out.JSON)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	assert.Equal(t, "ENVIRONMENT", string(sum.Outcome))
	require.NotNil(t, sum.Preflight)
	assert.False(t, sum.Preflight.Passed)
	assert.Contains(t, sum.Preflight.Output, missing)
	assert.Contains(t, sum.Preflight.Hint, missing)
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "**Outcome: ENVIRONMENT**")
	assert.Contains(t, string(md), "no agent was called")
}

// A Go module that requires a module the judge's offline module cache lacks cannot build
// for any coder: the run stops before any agent works, and says which module.
func TestPreflightStopsOnAGoModuleTheJudgeCannotDownload(t *testing.T) {
	pop := copyPopulation(t, demo)
	base := filepath.Join(pop, "base")
	require.NoError(t, os.WriteFile(filepath.Join(base, "go.mod"),
		[]byte("module example.com/semver\n\ngo 1.22\n\nrequire example.com/dixit/missingdep v1.0.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "dep.go"),
		[]byte("package semver\n\nimport _ \"example.com/dixit/missingdep\"\n"), 0o644))
	runEnvironmentCase(t, pop, "example.com/dixit/missingdep")
}

// A python3 without pytest cannot run any test: the run stops before any agent works.
func TestPreflightStopsOnAPythonWithoutPytest(t *testing.T) {
	const noPytest = "/root/.pyenv/shims"
	if exec.Command(filepath.Join(noPytest, "python3"), "-c", "import pytest").Run() == nil ||
		exec.Command(filepath.Join(noPytest, "python3"), "-c", "pass").Run() != nil {
		t.Skip("needs a python3 without pytest in " + noPytest)
	}
	t.Setenv("PATH", noPytest+":"+os.Getenv("PATH"))
	runEnvironmentCase(t, copyPopulation(t, "../../examples/percent"), "pytest")
}

// An environment that breaks during a run (here: the run resumes where python3 has no
// pytest) stops it with ENVIRONMENT instead of classifying every test TOO_HARD; nothing
// of that batch is kept, so once the environment is fixed the same command finishes the
// run as if nothing had happened.
func TestAnEnvironmentThatBreaksMidRunStopsItAndTheRunResumesOnceFixed(t *testing.T) {
	const noPytest = "/root/.pyenv/shims"
	if exec.Command(filepath.Join(noPytest, "python3"), "-c", "import pytest").Run() == nil {
		t.Skip("needs a python3 without pytest in " + noPytest)
	}
	pop, state := copyPopulation(t, "../../examples/percent"), t.TempDir()
	run := func(afterAppend func(int) error) (*session.Outcome, error) {
		return session.Run(context.Background(), session.Options{
			Population: pop, StateDir: state, BuildCache: buildCache, RunID: "midrun", AfterAppend: afterAppend,
		})
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", "/usr/bin:"+path) // a python3 with pytest: the preflight passes
	_, err := run(func(seq int) error {
		if seq == 5 { // the five coders have solved; no test was judged yet
			return orchestrate.ErrInterrupted
		}
		return nil
	})
	require.ErrorIs(t, err, orchestrate.ErrInterrupted)

	t.Setenv("PATH", noPytest+":"+path)
	out, err := run(nil)
	require.NoError(t, err)
	assert.Equal(t, orchestrate.Environment, out.Result.Outcome)
	assert.Contains(t, out.Result.Reason, "pytest")
	assert.Contains(t, out.Result.Reason, "the same command resumes")
	require.NotNil(t, out.Summary.Preflight)
	assert.True(t, out.Summary.Preflight.MidRun)

	t.Setenv("PATH", "/usr/bin:"+path)
	out, err = run(nil)
	require.NoError(t, err)
	assert.Equal(t, orchestrate.AllTestersHibernated, out.Result.Outcome, "the population's own ending: %s", out.Result.Reason)
	for _, ev := range out.Result.Events {
		for _, c := range ev.Cells {
			assert.NotContains(t, c.Output, "No module named pytest", "no verdict from the broken environment was kept")
		}
	}
}

// A base whose own tests fail, but build, is not an environment failure: the report says
// so, with their output, and the run goes on to its own ending.
func TestABaseWhoseOwnTestsFailIsNotedAndTheRunGoesOn(t *testing.T) {
	pop := copyPopulation(t, "testdata/critics")
	require.NoError(t, os.WriteFile(filepath.Join(pop, "base", "clamp_test.go"), []byte(
		"package clamp\n\nimport \"testing\"\n\nfunc TestClampInRange(t *testing.T) {\n\tif Clamp(5, 0, 9) != 5 {\n\t\tt.Fatal(\"want 5\")\n\t}\n}\n"), 0o644))
	out, err := session.Run(context.Background(), session.Options{
		Population: pop, StateDir: t.TempDir(), BuildCache: buildCache, RunID: "own",
	})
	require.NoError(t, err)
	assert.Equal(t, orchestrate.Accepted, out.Result.Outcome, out.Result.Reason)
	p := out.Summary.Preflight
	require.NotNil(t, p)
	assert.True(t, p.Passed)
	assert.Equal(t, "fail", p.OwnTests)
	assert.Contains(t, p.OwnOutput, "TestClampInRange")
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "its own tests ended **fail** (1 test failing: `TestClampInRange`)")
	assert.Equal(t, []string{"TestClampInRange"}, p.OwnFailing)
}
