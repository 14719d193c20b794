package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// TestHostileTestsGetVerdictsAndTheRunGoesOn runs a population whose testers propose an
// empty file, a test that does not compile, an endless loop, a sleeper that leaves a
// process behind, a fork bomb, a memory bomb, endless output and a network exfiltration;
// one coder's first tree does not compile. Every one gets a verdict naming what happened,
// the run reaches its escalation, and the journal holds every effect.
func TestHostileTestsGetVerdictsAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	out, err := session.Run(context.Background(), session.Options{
		Population: "testdata/hostile", StateDir: state, BuildCache: buildCache, RunID: "hostile",
	})
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, orchestrate.TestersExhausted, res.Outcome)
	require.Len(t, res.Vetted, 1)
	assert.Equal(t, "good-1", res.Vetted[0].ID)
	assert.Equal(t, []string{"c"}, res.Vetted[0].FailedBy, "the coder whose tree does not compile fails it")

	outcomes := map[string]map[string]bool{} // test → outcomes seen on coders a and b
	classes := map[string]orchestrate.Class{}
	for _, ev := range res.Events {
		if ev.Kind != orchestrate.EvClassify {
			continue
		}
		classes[ev.Test] = ev.Class
		for _, c := range ev.Cells {
			if c.Coder == "c" && ev.Round == 1 {
				assert.Equal(t, "build_failed", c.Outcome, "coder c's first tree does not compile")
				continue
			}
			if outcomes[ev.Test] == nil {
				outcomes[ev.Test] = map[string]bool{}
			}
			outcomes[ev.Test][c.Outcome] = true
		}
	}
	want := map[string][]string{
		"broken-1": {"build_failed"},
		"broken-2": {"build_failed"},
		"hang-1":   {"timeout"},
		"hang-2":   {"timeout"},
		"greedy-1": {"fail", "over_limit", "timeout"},
		"greedy-2": {"fail", "over_limit", "timeout"},
		"leaky-1":  {"over_limit"},
		"leaky-2":  {"fail"},
	}
	for test, allowed := range want {
		assert.Equal(t, orchestrate.TooHard, classes[test], test)
		require.NotEmpty(t, outcomes[test], test)
		for got := range outcomes[test] {
			assert.Contains(t, allowed, got, "%s ended %s", test, got)
		}
	}

	// Everything the run did is in the journal, in git.
	ws, err := gitstate.Open(filepath.Join(state, "runs", "hostile", "workshop.git"))
	require.NoError(t, err)
	j, err := ws.Journal("refs/dixit/hostile/journal")
	require.NoError(t, err)
	entries, err := j.Entries()
	require.NoError(t, err)
	assert.Len(t, entries, res.Live)
	_, err = os.Stat(out.Report)
	assert.NoError(t, err)
}
