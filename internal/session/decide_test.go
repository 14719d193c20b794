package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// TestAHumansDecisionsCarryTheRunOn walks examples/percent through its three stops: every
// tester asleep (woken), a broken coder (replaced, and the fresh one catches up), and a
// test four coders got wrong (dropped, which releases the right coder); then the run ends
// TESTERS_EXHAUSTED. Decisions that do not fit are refused and change nothing.
func TestAHumansDecisionsCarryTheRunOn(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	opts := session.Options{Population: "../../examples/percent", StateDir: state, BuildCache: buildCache, ResultCache: sharedVerdicts()}
	run := func() *session.Outcome {
		out, err := session.Run(context.Background(), opts)
		require.NoError(t, err)
		return out
	}
	decide := func(words ...string) error {
		_, err := session.Decide(state, opts.RunID, session.Ask{ID: "d-" + words[0] + "-" + time.Now().Format("150405.000000000"),
			Verb: words[0], Args: words[1:], By: "maria", At: time.Now()})
		return err
	}

	out := run()
	opts.RunID = out.Summary.Run
	require.Equal(t, orchestrate.AllTestersHibernated, out.Result.Outcome)
	// A damaged inbox (a line far too long, another not JSON) is read past, not fatal.
	junk := strings.Repeat("x", 100<<10) + "\nnot json\n"
	require.NoError(t, os.WriteFile(filepath.Join(state, "runs", opts.RunID, "decisions.jsonl"), []byte(junk), 0o644))
	assert.ErrorContains(t, decide("drop", "t1", "no"), "not in the vetted suite")
	assert.ErrorContains(t, decide("replace", "zed"), `there is no coder "zed"`)
	wake := session.Ask{ID: "comment-7", Verb: "wake", By: "maria", At: time.Now()}
	d, err := session.Decide(state, opts.RunID, wake)
	require.NoError(t, err)
	assert.Equal(t, "comment-7", d.ID)
	_, err = session.Decide(state, opts.RunID, wake)
	assert.ErrorIs(t, err, session.ErrRecorded, "the same decision twice is recorded once")
	_, err = session.Decide(state, opts.RunID, session.Ask{ID: "x", Verb: "drop", By: "maria"})
	var misworded *session.MiswordedError
	assert.ErrorAs(t, err, &misworded, "words that are no decision are told apart from a decision that does not fit")
	assert.ErrorContains(t, decide("continue"), "has a decision waiting already (wake by maria)")

	out = run()
	require.Equal(t, orchestrate.CodersStuck, out.Result.Outcome)
	assert.Contains(t, out.Result.Reason, "coder dee")
	assert.Equal(t, []string{"ivy-3"}, ids(out.Result.Vetted))
	require.NoError(t, decide("replace", "dee"))

	out = run()
	require.Equal(t, orchestrate.CodersStuck, out.Result.Outcome)
	assert.Contains(t, out.Result.Reason, "coder eve", "the fresh coder caught up; eve is right, and fails the wrong test")
	assert.Equal(t, []string{"ann", "bob", "cy", "dee_2", "eve"}, coderNames(out.Result))
	require.NoError(t, decide("drop", "t2", "wrong expectation: the spec rounds halves away from zero"))

	out = run()
	assert.Equal(t, orchestrate.TestersExhausted, out.Result.Outcome)
	assert.Equal(t, []string{"ivy-3"}, ids(out.Result.Vetted))
	require.Len(t, out.Summary.Decisions, 3)
	for i, verb := range []string{"wake", "replace", "drop"} {
		assert.Equal(t, verb, out.Summary.Decisions[i].Verb)
		assert.Equal(t, "maria", out.Summary.Decisions[i].By)
	}
	report, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(report), "drop t2: wrong expectation: the spec rounds halves away from zero")

	// --resume finds the run by its id alone.
	in, err := session.ReadInputs(state, opts.RunID)
	require.NoError(t, err)
	abs, _ := filepath.Abs("../../examples/percent")
	assert.Equal(t, abs, in.Population)
	_, err = session.ReadInputs(state, "../elsewhere")
	assert.ErrorContains(t, err, "not a run id")
}

func ids(v []orchestrate.Vetted) []string {
	var out []string
	for _, t := range v {
		out = append(out, t.ID)
	}
	return out
}

func coderNames(res *orchestrate.Result) []string {
	var out []string
	for _, c := range res.Coders {
		out = append(out, c.Name)
	}
	return out
}
