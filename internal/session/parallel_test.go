package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
	"github.com/dixit-bot/dixit/internal/session"
)

// lanes reads the lane of each record of a run's journal.
func lanes(t *testing.T, stateDir, runID string) []string {
	t.Helper()
	out, err := journalLanes(stateDir, runID)
	require.NoError(t, err)
	return out
}

// journalLanes is lanes for a caller that checks the error itself.
func journalLanes(stateDir, runID string) ([]string, error) {
	ws, err := gitstate.Open(filepath.Join(stateDir, "runs", runID, "workshop.git"))
	if err != nil {
		return nil, err
	}
	j, err := ws.Journal("refs/dixit/" + runID + "/journal")
	if err != nil {
		return nil, err
	}
	entries, err := j.Entries()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, data := range entries {
		var rec struct{ Lane string }
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, err
		}
		out = append(out, rec.Lane)
	}
	return out, nil
}

// agentsAtOnce tells whether a journal holds an effect of one agent between two of another.
func agentsAtOnce(lanes []string) bool {
	last := map[string]int{}
	for i, l := range lanes {
		if l == "" {
			continue
		}
		if prev, ok := last[l]; ok {
			for _, between := range lanes[prev+1 : i] {
				if between != "" && between != l {
					return true
				}
			}
		}
		last[l] = i
	}
	return false
}

// A live run whose agents work at once, killed after each journalled effect (inside the
// coders' and the testers' parallel phases too) and resumed, ends as the uninterrupted run:
// same outcome, vetted tests and numbers, workspaces and events; every journalled effect is
// replayed, none is asked of the model again.
func TestALiveRunCutInsideItsParallelPhasesResumesToTheSameEnd(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		step := population(req)
		step.Delay = 5 * time.Millisecond // the agents' replies overlap, as a real model's do
		return step
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	state := t.TempDir() // shared: the cut runs' verdicts come from the cache
	opts := session.Options{Spec: writeSpec(t), Repo: calcRepo(t), Client: client, StateDir: state, BuildCache: buildCache,
		ResultCache: sharedVerdicts()}

	opts.RunID = "whole"
	whole, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	effects := whole.Result.Live
	require.Greater(t, effects, 10)
	worked := agentsAtOnce(lanes(t, state, "whole"))

	// The cuts are independent runs, a few at once (atOnce); each is checked in order.
	type cutRun struct {
		cutErr, lanesErr, err error
		cutLanes              []string
		resumed               *session.Outcome
	}
	runs := atOnce(1, effects, func(cut int) (run cutRun) {
		o := opts
		o.RunID = fmt.Sprintf("cut-%d", cut)
		o.AfterAppend = func(seq int) error {
			if seq == cut {
				return orchestrate.ErrInterrupted
			}
			return nil
		}
		_, run.cutErr = session.RunLive(context.Background(), o)
		if !errors.Is(run.cutErr, orchestrate.ErrInterrupted) {
			return run
		}
		if run.cutLanes, run.lanesErr = journalLanes(state, o.RunID); run.lanesErr != nil {
			return run
		}
		o.AfterAppend = nil
		run.resumed, run.err = whenFree(func() (*session.Outcome, error) { return session.RunLive(context.Background(), o) })
		return run
	})
	for i, run := range runs {
		cut := i + 1
		require.ErrorIs(t, run.cutErr, orchestrate.ErrInterrupted, "cut %d", cut)
		require.NoError(t, run.lanesErr, "cut %d", cut)
		require.Len(t, run.cutLanes, cut, "cut %d: nothing reaches the journal after the kill", cut)
		worked = worked || agentsAtOnce(run.cutLanes)

		require.NoError(t, run.err, "cut %d", cut)
		r := run.resumed.Result
		assert.Equal(t, cut, r.Replayed, "cut %d: every journalled effect is replayed", cut)
		assert.Equal(t, effects-cut, r.Live, "cut %d: only the rest is performed", cut)
		assert.Equal(t, whole.Result.Outcome, r.Outcome, "cut %d", cut)
		assert.Equal(t, whole.Result.Vetted, r.Vetted, "cut %d: same tests, same numbers", cut)
		assert.Equal(t, whole.Result.Coders, r.Coders, "cut %d: same workspaces, commit for commit", cut)
		assert.Equal(t, whole.Result.Testers, r.Testers, "cut %d", cut)
		assert.Equal(t, orchestratetest.Unflagged(whole.Result.Events), orchestratetest.Unflagged(r.Events), "cut %d", cut)
	}
	assert.True(t, worked, "the agents of a phase worked at once")
}
