package orchestrate_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// revivalScenario exercises hibernation, revival, rollbacks of both kinds and CODERS_STUCK.
var revivalScenario = scenario{
	versions: []int{1, 1, 2, 2, 1},
	testers:  [][]string{{"ahead", "wrong"}, {"split", "easy", "easy"}},
	passes: map[string][]string{
		"ahead": {"c1@1", "c2@1", "c3@2", "c4@2"},
		"split": {"c1@1", "c2@1", "c5@1", "c3@2", "c4@2"},
		"easy":  {"*"},
	},
}

func TestInterruptedAtEveryEffectResumesToTheSameEnd(t *testing.T) {
	whole := revivalScenario.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, whole.err)
	effects := len(whole.journal.Records)
	require.Greater(t, effects, 20)
	// Paid: model replies, and jobs judged (a phase's judge effects share one call).
	paid := func(c *orchestratetest.Calls) int { return c.Solves + c.Props + c.Jobs }
	require.Equal(t, paidIn(t, whole.journal.Records), paid(whole.calls))

	for cut := 1; cut < effects; cut++ {
		journal := &orchestratetest.Journal{}
		first := revivalScenario.play(t, journal, func(seq int) error {
			if seq == cut {
				return orchestrate.ErrInterrupted
			}
			return nil
		})
		require.ErrorIs(t, first.err, orchestrate.ErrInterrupted)
		require.Len(t, journal.Records, cut)

		// A new process: fresh agents, the same journal.
		second := revivalScenario.play(t, journal, nil)
		require.NoError(t, second.err, "cut after effect %d", cut)
		assert.Equal(t, whole.res.Outcome, second.res.Outcome, "cut %d", cut)
		assert.Equal(t, whole.res.Vetted, second.res.Vetted, "cut %d", cut)
		assert.Equal(t, orchestratetest.Unflagged(whole.res.Events), orchestratetest.Unflagged(second.res.Events), "cut %d", cut)
		assert.Equal(t, whole.res.Coders, second.res.Coders, "cut %d", cut)
		assert.Equal(t, whole.res.Testers, second.res.Testers, "cut %d", cut)
		assert.Equal(t, paidIn(t, journal.Records[cut:]), paid(second.calls), "cut %d: only unfinished effects are paid again", cut)
		assert.Equal(t, cut, second.res.Replayed)
		for i, c := range second.coders {
			assert.Equal(t, whole.coders[i].History, c.History, "cut %d: coder %s remembers the same", cut, c.Name())
		}
		for i, tt := range second.testers {
			assert.Equal(t, whole.testers[i].History, tt.History, "cut %d: tester %s remembers the same", cut, tt.Name())
		}
	}
}

// paidIn is what the journalled effects cost: a reply per solve and proposal, a job per
// verdict.
func paidIn(t *testing.T, records [][]byte) int {
	t.Helper()
	n := 0
	for _, data := range records {
		var rec struct {
			Effect   string
			Verdicts []json.RawMessage
		}
		require.NoError(t, json.Unmarshal(data, &rec))
		if rec.Effect == "solve" || rec.Effect == "propose" {
			n++
		}
		n += len(rec.Verdicts)
	}
	return n
}

func TestAChangedPopulationDoesNotReplayAStaleJournal(t *testing.T) {
	journal := &orchestratetest.Journal{}
	require.NoError(t, revivalScenario.play(t, journal, nil).err)
	changed := revivalScenario
	changed.versions = []int{1, 1, 2, 2}
	p := changed.play(t, journal, nil)
	require.Error(t, p.err)
	assert.Contains(t, p.err.Error(), "changed since the run began")
}

func TestCorruptJournalIsRefused(t *testing.T) {
	journal := &orchestratetest.Journal{Records: [][]byte{[]byte("{not json")}}
	calls := &orchestratetest.Calls{}
	deps := orchestrate.Deps{Journal: journal, Testers: []orchestrate.Tester{orchestratetest.NewTester("t1", calls)}}
	for _, name := range []string{"c1", "c2", "c3"} {
		deps.Coders = append(deps.Coders, orchestratetest.NewCoder(name, 1, calls))
	}
	_, err := orchestrate.New(defaultSettings(3, 1), deps)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "journal entry 1 is corrupt")
}

// TestAgentsHearNothingOfTheGame reads every message any agent received in a run full of
// feedback and checks it says nothing of other agents, rates, votes or a game.
func TestAgentsHearNothingOfTheGame(t *testing.T) {
	p := revivalScenario.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	forbidden := regexp.MustCompile(`(?i)coder|tester|agent|other|majority|vote|rate|score|game|player|%|hibernat|classif|ideal|weak`)
	var heard []string
	for _, c := range p.coders {
		heard = append(heard, c.History...)
	}
	for _, tt := range p.testers {
		heard = append(heard, tt.History...)
	}
	n := 0
	for _, line := range heard {
		msg, ok := strings.CutPrefix(line, "user: ")
		if !ok {
			continue
		}
		n++
		assert.NotRegexp(t, forbidden, msg)
	}
	assert.Greater(t, n, 10, "the run gave plenty of feedback")
}

func TestTokenBudgetEndsTheRunAtTheSamePointWhenResumed(t *testing.T) {
	budgeted := revivalScenario
	budgeted.budget = config.Budget{Tokens: 1200} // each solve or proposal costs 110 tokens
	whole := budgeted.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, whole.err)
	assert.Equal(t, orchestrate.BudgetExhausted, whole.res.Outcome)
	assert.Contains(t, whole.res.Reason, "tokens spent, budget.tokens is 1200")
	assert.Equal(t, 1210, whole.res.Spend.Tokens(), "the run stops at the first effect over the budget")
	byAgent := 0
	for _, s := range whole.res.SpentBy {
		byAgent += s.Tokens()
	}
	assert.Equal(t, whole.res.Spend.Tokens(), byAgent, "per-agent spend adds up to the total")
	assert.Equal(t, 110, whole.res.SpentBy["c1"].Tokens(), "c1 solved once")

	journal := &orchestratetest.Journal{}
	cut := len(whole.journal.Records) / 2
	first := budgeted.play(t, journal, func(seq int) error {
		if seq == cut {
			return orchestrate.ErrInterrupted
		}
		return nil
	})
	require.ErrorIs(t, first.err, orchestrate.ErrInterrupted)
	resumed := budgeted.play(t, journal, nil)
	require.NoError(t, resumed.err)
	assert.Equal(t, whole.res.Reason, resumed.res.Reason)
	assert.Equal(t, whole.res.Spend.Tokens(), resumed.res.Spend.Tokens(), "replayed effects count against the budget")
}
