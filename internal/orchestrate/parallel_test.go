package orchestrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// slowJudge takes a moment per call, so the agents of a phase overlap and their effects
// reach the journal interleaved, as with real models and a real judge.
type slowJudge struct{ ci.Judge }

func (j slowJudge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	time.Sleep(time.Millisecond)
	return j.Judge.Run(ctx, reruns, jobs)
}

// fiveByThree is 5 coders and 3 testers over three rounds: a tester falls asleep and
// wakes, coders fix their work, tests enter from several testers in one round, and the
// last round's tests meet max_rounds.
func fiveByThree(budget config.Budget) scenario {
	c := func(names ...string) []string { return names }
	return scenario{
		versions: []int{1, 2, 2, 2, 3},
		testers:  [][]string{{"A", "B", "N"}, {"X", "W"}, {"Y", "W2"}},
		passes: map[string][]string{
			"A": c("c1@1", "c2@2", "c3@2", "c4@2", "c5@3"), "B": c(),
			"X": c("c1@1", "c2@1", "c2@2", "c3@1", "c3@2", "c4@2", "c5@2", "c5@3"),
			"Y": c("c1@1", "c2@1", "c2@2", "c4@1", "c5@1", "c3@2", "c4@2", "c5@2", "c5@3"),
			"N": c("c1@1", "c2@1", "c3@2", "c4@2"), "W": c("*"), "W2": c("*"),
		},
		maxRounds: 3,
		budget:    budget,
	}
}

// journalled reads a journal's records: effect, agent, lane.
type journalled struct {
	Effect, Agent, Lane string
}

func records(t *testing.T, j *orchestratetest.Journal) []journalled {
	t.Helper()
	var out []journalled
	for _, data := range j.Records {
		var r journalled
		require.NoError(t, json.Unmarshal(data, &r))
		out = append(out, r)
	}
	return out
}

// interleaved tells whether some agent's effect was journalled between two effects of
// another agent: the journal was written by agents working at once.
func interleaved(recs []journalled) bool {
	last := map[string]int{}
	for i, r := range recs {
		if r.Lane == "" {
			continue
		}
		if prev, ok := last[r.Lane]; ok {
			for _, between := range recs[prev+1 : i] {
				if between.Lane != "" && between.Lane != r.Lane {
					return true
				}
			}
		}
		last[r.Lane] = i
	}
	return false
}

// A run whose coders and testers work at once, cut after every journalled effect (so
// inside its parallel phases too) and resumed, ends exactly as the uninterrupted run:
// same outcome, tests and numbers, agents, events in the same order; it replays every
// journalled effect and pays only for the rest.
func TestAParallelRunResumesAfterEveryEffect(t *testing.T) {
	for name, budget := range map[string]config.Budget{"no budget": {}, "a token budget crossed by the testers": {Tokens: 2000}} {
		t.Run(name, func(t *testing.T) {
			s := fiveByThree(budget)
			whole := s.playSlow(t, &orchestratetest.Journal{}, nil)
			require.NoError(t, whole.err)
			if budget.Tokens > 0 {
				require.Equal(t, orchestrate.BudgetExhausted, whole.res.Outcome, whole.res.Reason)
			}
			effects := whole.res.Live
			require.Greater(t, effects, 20)
			sawInterleaving := interleaved(records(t, whole.journal))
			for cut := 1; cut < effects; cut++ {
				journal := &orchestratetest.Journal{}
				cutRun := s.playSlow(t, journal, func(seq int) error {
					if seq == cut {
						return orchestrate.ErrInterrupted
					}
					return nil
				})
				require.ErrorIs(t, cutRun.err, orchestrate.ErrInterrupted, "cut %d", cut)
				require.Len(t, journal.Records, cut, "nothing reaches the journal after the cut")
				sawInterleaving = sawInterleaving || interleaved(records(t, journal))

				resumed := s.playSlow(t, journal, nil)
				require.NoError(t, resumed.err, "cut %d", cut)
				r := resumed.res
				assert.Equal(t, whole.res.Outcome, r.Outcome, "cut %d", cut)
				assert.Equal(t, whole.res.Reason, r.Reason, "cut %d", cut)
				assert.Equal(t, whole.res.Vetted, r.Vetted, "cut %d: same tests, same numbers", cut)
				assert.Equal(t, whole.res.Proposals, r.Proposals, "cut %d", cut)
				assert.Equal(t, whole.res.Coders, r.Coders, "cut %d", cut)
				assert.Equal(t, whole.res.Testers, r.Testers, "cut %d", cut)
				assert.Equal(t, orchestratetest.Unflagged(whole.res.Events), orchestratetest.Unflagged(r.Events), "cut %d", cut)
				assert.Equal(t, whole.res.Spend.Tokens(), r.Spend.Tokens(), "cut %d", cut)
				assert.Equal(t, cut, r.Replayed, "cut %d: every journalled effect is replayed", cut)
				assert.Equal(t, effects-cut, r.Live, "cut %d: only the rest is performed", cut)
				paid := 0
				for _, rec := range records(t, journal)[cut:] {
					if rec.Effect == "solve" || rec.Effect == "propose" {
						paid++
					}
				}
				assert.Equal(t, paid, resumed.calls.Solves+resumed.calls.Props, "cut %d: no model reply the journal holds is asked for again", cut)
			}
			assert.True(t, sawInterleaving, "the agents of a phase worked at once")
		})
	}
}

func (s scenario) playSlow(t *testing.T, journal *orchestratetest.Journal, afterAppend func(int) error) played {
	t.Helper()
	return s.playWith(t, journal, afterAppend, func(j ci.Judge) ci.Judge { return slowJudge{j} })
}

// The order of a round's work does not depend on how many agents work at once: with
// parallel_agents 1, 2 or all, the run has the same outcome, tests, numbers and events.
func TestParallelAgentsDoesNotChangeTheRun(t *testing.T) {
	seq := fiveByThree(config.Budget{})
	seq.width = 1
	want := seq.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, want.err)
	for _, width := range []int{2, 3, 0} {
		s := fiveByThree(config.Budget{})
		s.width = width
		got := s.playSlow(t, &orchestratetest.Journal{}, nil)
		require.NoError(t, got.err)
		assert.Equal(t, want.res.Outcome, got.res.Outcome, "parallel_agents %d", width)
		assert.Equal(t, want.res.Vetted, got.res.Vetted, "parallel_agents %d", width)
		assert.Equal(t, want.res.Proposals, got.res.Proposals, "parallel_agents %d", width)
		assert.Equal(t, story(want.res.Events), story(got.res.Events), "parallel_agents %d", width)
		assert.Equal(t, want.res.Spend.Tokens(), got.res.Spend.Tokens(), "parallel_agents %d", width)
	}
}

// A journal written before phases ran in parallel (its records have no lanes) replays to
// the same end, whole or cut, with every agent of a phase now working at once.
func TestAnOlderJournalReplays(t *testing.T) {
	s := fiveByThree(config.Budget{})
	s.width = 1
	old := &orchestratetest.Journal{}
	whole := s.play(t, old, nil)
	require.NoError(t, whole.err)
	for i, data := range old.Records {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(data, &rec))
		delete(rec, "lane")
		delete(rec, "width")
		old.Records[i], _ = json.Marshal(rec)
	}
	for _, cut := range []int{len(old.Records), len(old.Records) / 2, 7} {
		journal := &orchestratetest.Journal{Records: append([][]byte(nil), old.Records[:cut]...)}
		s.width = 0
		resumed := s.playSlow(t, journal, nil)
		require.NoError(t, resumed.err, "cut %d", cut)
		assert.Equal(t, cut, resumed.res.Replayed, "cut %d", cut)
		assert.Equal(t, whole.res.Outcome, resumed.res.Outcome, "cut %d", cut)
		assert.Equal(t, whole.res.Vetted, resumed.res.Vetted, "cut %d", cut)
		assert.Equal(t, orchestratetest.Unflagged(whole.res.Events), orchestratetest.Unflagged(resumed.res.Events), "cut %d", cut)
	}
}

// With a budget, each agent checks it against what the run had spent when the phase
// began plus its own spend: agents working at once cannot see each other's, so the run
// stops at the end of the phase that crossed it, the tests that phase found kept.
func TestABudgetCrossedByAgentsAtOnceStopsAtTheEndOfThePhase(t *testing.T) {
	s := fiveByThree(config.Budget{Tokens: 2000})
	p := s.playSlow(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.BudgetExhausted, p.res.Outcome)
	assert.Contains(t, p.res.Reason, "budget.tokens is 2000")
	assert.Greater(t, p.res.Spend.Tokens(), 2000)
	again := s.playSlow(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, again.err)
	assert.Equal(t, p.res.Spend.Tokens(), again.res.Spend.Tokens(), "where it stops does not depend on timing")
	assert.Equal(t, story(p.res.Events), story(again.res.Events))
}

func TestParallelAgentsIsChecked(t *testing.T) {
	cfg := defaultSettings(5, 3)
	cfg.ParallelAgents = -1
	_, err := orchestrate.New(cfg, orchestrate.Deps{})
	assert.ErrorContains(t, err, "parallel_agents")
}

// The critical path adds up, phase by phase, the slowest agent's turn (its effects and
// the judge's verdicts on its work), and the protocol's own effects between phases.
func TestCriticalPathIsTheSlowestAgentOfEachPhase(t *testing.T) {
	entries := [][]byte{
		[]byte(`{"seq":1,"effect":"solve","agent":"a","lane":"a","phase":1,"spend":{"seconds":1}}`),
		[]byte(`{"seq":2,"effect":"solve","agent":"b","lane":"b","phase":1,"spend":{"seconds":4}}`),
		[]byte(`{"seq":3,"effect":"judge","agent":"a","lane":"a","phase":1,"spend":{"seconds":2}}`),
		[]byte(`{"seq":4,"effect":"decide","spend":{"seconds":0.5}}`),
		[]byte(`{"seq":5,"effect":"propose","agent":"t","lane":"t","phase":2,"spend":{"seconds":1}}`),
	}
	got, err := orchestrate.CriticalPath(entries)
	require.NoError(t, err)
	assert.Equal(t, 2, got.Phases)
	assert.Equal(t, 5500*time.Millisecond, got.Critical, "b's 4 s, the decision's 0.5 s and t's 1 s")
	assert.Equal(t, 8500*time.Millisecond, got.Total)

	_, err = orchestrate.CriticalPath([][]byte{[]byte("{")})
	assert.ErrorContains(t, err, "journal entry 1 is corrupt")
}

// slowCoder takes a moment over each solve, as a model does, and gives up when its
// context ends; brokenCoder cannot solve at all, and fails once the others have begun
// (entered counts them in), so the test does not hang on how goroutines are scheduled.
type slowCoder struct {
	*orchestratetest.Coder
	entered *sync.WaitGroup
}

func (c slowCoder) Solve(ctx context.Context, t orchestrate.Turn) (string, error) {
	if c.entered != nil {
		c.entered.Done()
	}
	select {
	case <-time.After(20 * time.Millisecond):
		return c.Coder.Solve(ctx, t)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

type brokenCoder struct {
	*orchestratetest.Coder
	others *sync.WaitGroup
}

func (c brokenCoder) Solve(context.Context, orchestrate.Turn) (string, error) {
	if c.others != nil {
		c.others.Wait()
	}
	return "", errors.New("the model endpoint is down")
}

// When one agent of a phase fails, the run fails, but the turns the other agents had
// under way finish and are journalled: the resumed run does not pay for them again.
func TestAFailingAgentDoesNotWasteTheOthersWork(t *testing.T) {
	play := func(journal *orchestratetest.Journal, broken bool) (*orchestratetest.Calls, error) {
		calls := &orchestratetest.Calls{}
		deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: journal,
			Judge: orchestratetest.Judge{Calls: calls, Passes: func(test, tree string) bool { return true }}}
		var entered *sync.WaitGroup
		if broken {
			entered = &sync.WaitGroup{}
			entered.Add(2)
		}
		for i := range 3 {
			var c orchestrate.Coder = slowCoder{orchestratetest.NewCoder(fmt.Sprintf("c%d", i+1), 1, calls), entered}
			if broken && i == 1 {
				c = brokenCoder{orchestratetest.NewCoder("c2", 1, calls), entered}
			}
			deps.Coders = append(deps.Coders, c)
		}
		deps.Testers = []orchestrate.Tester{orchestratetest.NewTester("t1", calls)}
		run, err := orchestrate.New(defaultSettings(3, 1), deps)
		require.NoError(t, err)
		_, err = run.Execute(context.Background())
		return calls, err
	}
	journal := &orchestratetest.Journal{}
	_, err := play(journal, true)
	require.ErrorContains(t, err, "the model endpoint is down")
	assert.Len(t, journal.Records, 2, "c1's and c3's solves were under way: they are journalled")

	calls, err := play(journal, false)
	require.NoError(t, err)
	assert.Equal(t, 1, calls.Solves, "only c2 solves when the run resumes")
}

// concurrency counts the agent work running at once, and the most it saw.
type concurrency struct {
	mu        sync.Mutex
	open, max int
}

func (c *concurrency) Event(context.Context, orchestrate.Event) {}

func (c *concurrency) Begin(context.Context, orchestrate.Work) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open++
	c.max = max(c.max, c.open)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.open--
	}
}

// parallel_agents bounds the agents at work at once; absent, every agent of a phase works.
func TestParallelAgentsBoundsTheAgentsAtWork(t *testing.T) {
	for _, width := range []int{1, 2, 0} {
		seen := &concurrency{}
		calls := &orchestratetest.Calls{}
		deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: &orchestratetest.Journal{}, Reporter: seen,
			Judge: orchestratetest.Judge{Calls: calls, Passes: func(test, tree string) bool { return true }}}
		for i := range 5 {
			deps.Coders = append(deps.Coders, slowCoder{Coder: orchestratetest.NewCoder(fmt.Sprintf("c%d", i+1), 1, calls)})
		}
		deps.Testers = []orchestrate.Tester{orchestratetest.NewTester("t1", calls)}
		cfg := defaultSettings(5, 1)
		cfg.ParallelAgents = width
		run, err := orchestrate.New(cfg, deps)
		require.NoError(t, err)
		_, err = run.Execute(context.Background())
		require.NoError(t, err)
		want := width
		if width == 0 {
			want = 5
		}
		assert.Equal(t, want, seen.max, "parallel_agents %d", width)
	}
}

// A run resumed with another parallel_agents finishes the phase it was cut in as that
// phase began, so a budget stops it where the uninterrupted run stopped: here the last
// phase, whose first testers cross the budget, so that with two at once the third never
// starts.
func TestAResumedPhaseKeepsItsWidth(t *testing.T) {
	s := fiveByThree(config.Budget{Tokens: 2000})
	s.width = 2
	whole := s.playSlow(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, whole.err)
	require.Equal(t, orchestrate.BudgetExhausted, whole.res.Outcome)
	var phases []struct{ Phase int }
	for _, data := range whole.journal.Records {
		var rec struct{ Phase int }
		require.NoError(t, json.Unmarshal(data, &rec))
		phases = append(phases, rec)
	}
	cut := len(phases)
	for cut > 1 && phases[cut-2].Phase == phases[len(phases)-1].Phase {
		cut--
	}
	require.Less(t, cut, len(phases), "the last phase has more than one effect")

	journal := &orchestratetest.Journal{}
	cutRun := s.playSlow(t, journal, func(seq int) error {
		if seq == cut {
			return orchestrate.ErrInterrupted
		}
		return nil
	})
	require.ErrorIs(t, cutRun.err, orchestrate.ErrInterrupted)
	s.width = 0
	resumed := s.playSlow(t, journal, nil)
	require.NoError(t, resumed.err)
	assert.Equal(t, whole.res.Reason, resumed.res.Reason)
	assert.Equal(t, whole.res.Spend.Tokens(), resumed.res.Spend.Tokens(), "no agent starts that the phase as begun would not have started")
	assert.Equal(t, whole.res.Testers, resumed.res.Testers)
}
