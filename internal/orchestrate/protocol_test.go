package orchestrate_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// scenario is a population of fakes: coders c1…c5 with a number of versions each, testers
// with their proposals, and which trees pass which test ("*" = every tree).
type scenario struct {
	versions  []int
	testers   [][]string // tester i is named t<i+1>
	passes    map[string][]string
	maxRounds int
	budget    config.Budget
	width     int // parallel_agents; 0 = every agent of a phase at once
	// decisions are the humans' answers; replacements the versions of the coders that
	// replace others (c4_2, …).
	decisions    []orchestrate.Decision
	replacements map[string]int
	// guard holds coders to the repository's own tests; nil: none.
	guard orchestrate.Guard
}

type played struct {
	res     *orchestrate.Result
	err     error
	coders  []*orchestratetest.Coder
	testers []*orchestratetest.Tester
	calls   *orchestratetest.Calls
	journal *orchestratetest.Journal
}

func defaultSettings(coders, testers int) config.Settings {
	cfg := config.Defaults()
	cfg.Coders, cfg.Testers = coders, testers
	return cfg
}

func (s scenario) play(t *testing.T, journal *orchestratetest.Journal, afterAppend func(int) error) played {
	t.Helper()
	return s.playWith(t, journal, afterAppend, nil)
}

// playWith plays s with its judge wrapped by wrap, when set.
func (s scenario) playWith(t *testing.T, journal *orchestratetest.Journal, afterAppend func(int) error, wrap func(ci.Judge) ci.Judge) played {
	t.Helper()
	cfg := defaultSettings(len(s.versions), len(s.testers))
	if s.maxRounds > 0 {
		cfg.MaxRounds = s.maxRounds
	}
	cfg.Budget = s.budget
	cfg.ParallelAgents = s.width
	p := played{calls: &orchestratetest.Calls{}, journal: journal}
	deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: journal, AfterAppend: afterAppend,
		Decisions: func() ([]orchestrate.Decision, error) { return s.decisions, nil }, Guard: s.guard}
	deps.NewCoder = func(replaces, name string) (orchestrate.Coder, error) {
		v, ok := s.replacements[name]
		if !ok {
			return nil, fmt.Errorf("no replacement %s", name)
		}
		c := orchestratetest.NewCoder(name, v, p.calls)
		p.coders = append(p.coders, c)
		return c, nil
	}
	for i, v := range s.versions {
		c := orchestratetest.NewCoder(fmt.Sprintf("c%d", i+1), v, p.calls)
		p.coders = append(p.coders, c)
		deps.Coders = append(deps.Coders, c)
	}
	for i, props := range s.testers {
		tt := orchestratetest.NewTester(fmt.Sprintf("t%d", i+1), p.calls, props...)
		p.testers = append(p.testers, tt)
		deps.Testers = append(deps.Testers, tt)
	}
	deps.Judge = orchestratetest.Judge{Calls: p.calls, Passes: func(test, tree string) bool {
		for _, ok := range s.passes[test] {
			if ok == "*" || ok == tree {
				return true
			}
		}
		return false
	}}
	if wrap != nil {
		deps.Judge = wrap(deps.Judge)
	}
	run, err := orchestrate.New(cfg, deps)
	require.NoError(t, err)
	p.res, p.err = run.Execute(context.Background())
	return p
}

// story renders the events a reader of the pseudocode would check, one per line.
func story(events []orchestrate.Event) []string {
	var out []string
	for _, e := range events {
		switch e.Kind {
		case orchestrate.EvClassify:
			out = append(out, fmt.Sprintf("classify %s %s %d/5", e.Test, e.Class, e.Passed))
		case orchestrate.EvSuite:
			out = append(out, fmt.Sprintf("suite %s %s", e.Agent, e.Detail))
		case orchestrate.EvPropose:
			if e.Test == "" {
				out = append(out, "propose "+e.Agent+" none")
			}
		case orchestrate.EvSolve:
			if e.Round > 0 {
				out = append(out, "solve "+e.Agent)
			}
		case orchestrate.EvRound:
			out = append(out, fmt.Sprintf("round %d", e.Round))
		case orchestrate.EvEscalate:
			out = append(out, "escalate "+string(e.Outcome))
		case orchestrate.EvDecide:
			out = append(out, "decide "+e.Agent+" "+e.Detail)
		default:
			out = append(out, strings.TrimSpace(e.Kind+" "+e.Agent+" "+e.Test))
		}
	}
	return out
}

func TestProtocol(t *testing.T) {
	c := func(names ...string) []string { return names }
	tests := []struct {
		name     string
		scenario scenario
		outcome  orchestrate.Outcome
		story    []string
		vetted   []string
	}{
		{
			name: "an IDEAL test enters, the lagging coder catches up, two weak tests roll the tester back, then it runs dry",
			scenario: scenario{
				versions: []int{1, 1, 1, 1, 2},
				testers:  [][]string{{"split", "easy", "easy2"}},
				passes:   map[string][]string{"split": c("c1@1", "c2@1", "c3@1", "c4@1", "c5@2"), "easy": c("*"), "easy2": c("*")},
			},
			outcome: orchestrate.TestersExhausted,
			vetted:  []string{"t1-1"},
			story: []string{
				"round 1", "classify t1-1 IDEAL 4/5", "thank t1", "vet t1 t1-1",
				"round 2", "suite c1 ACC", "suite c2 ACC", "suite c3 ACC", "suite c4 ACC",
				"suite c5 WA", "solve c5", "suite c5 ACC", "thank c5",
				"classify t1-2 TOO_WEAK 5/5", "classify t1-3 TOO_WEAK 5/5", "rollback t1", "propose t1 none",
				"escalate TESTERS_EXHAUSTED",
			},
		},
		{
			name: "3 of 5 is IDEAL and 2 of 5 is TOO_HARD; two hard tests hibernate the tester; all asleep escalates",
			scenario: scenario{
				versions: []int{1, 1, 1, 1, 1},
				testers:  [][]string{{"three", "x"}, {"two", "zero"}},
				passes:   map[string][]string{"three": c("c1@1", "c2@1", "c3@1"), "two": c("c1@1", "c2@1")},
			},
			outcome: orchestrate.CodersStuck,
			vetted:  []string{"t1-1"},
			story: []string{
				"round 1", "classify t1-1 IDEAL 3/5", "thank t1",
				"classify t2-1 TOO_HARD 2/5", "classify t2-2 TOO_HARD 0/5", "hibernate t2", "vet t1 t1-1",
				"round 2", "suite c1 ACC", "suite c2 ACC", "suite c3 ACC", "suite c4 WA", "solve c4", "suite c4 WA",
				"solve c4", "suite c4 WA", "rollback c4", "solve c4", "suite c4 WA", "rollback c4", "solve c4", "suite c4 WA", "rollback c4",
				"escalate CODERS_STUCK",
			},
		},
		{
			name: "every tester asleep escalates ALL_TESTERS_HIBERNATED",
			scenario: scenario{
				versions: []int{1, 1, 1, 1, 1},
				testers:  [][]string{{"h1", "h2"}, {"h3", "h4"}},
				passes:   map[string][]string{},
			},
			outcome: orchestrate.AllTestersHibernated,
			story: []string{
				"round 1", "classify t1-1 TOO_HARD 0/5", "classify t1-2 TOO_HARD 0/5", "hibernate t1",
				"classify t2-1 TOO_HARD 0/5", "classify t2-2 TOO_HARD 0/5", "hibernate t2",
				"escalate ALL_TESTERS_HIBERNATED",
			},
		},
		{
			name: "a sleeping tester's first test becomes IDEAL: it wakes at checkpoint B and the test enters",
			scenario: scenario{
				versions: []int{1, 1, 2, 2, 1},
				testers:  [][]string{{"ahead", "wrong"}, {"split"}},
				passes: map[string][]string{
					"ahead": c("c1@1", "c2@1", "c3@2", "c4@2"),
					"split": c("c1@1", "c2@1", "c5@1", "c3@2", "c4@2"),
				},
			},
			outcome: orchestrate.CodersStuck,
			vetted:  []string{"t2-1", "t1-1"},
			story: []string{
				"round 1", "classify t1-1 TOO_HARD 2/5", "classify t1-2 TOO_HARD 0/5", "hibernate t1",
				"classify t2-1 IDEAL 3/5", "thank t2", "vet t2 t2-1",
				"round 2", "suite c1 ACC", "suite c2 ACC", "suite c3 WA", "solve c3", "suite c3 ACC", "thank c3",
				"suite c4 WA", "solve c4", "suite c4 ACC", "thank c4", "suite c5 ACC",
				"classify t1-1 IDEAL 4/5", "revive t1 t1-1", "rollback t1", "thank t1", "propose t2 none", "vet t1 t1-1",
				"round 3", "suite c1 ACC ACC", "suite c2 ACC ACC", "suite c3 ACC ACC", "suite c4 ACC ACC",
				"suite c5 ACC WA", "solve c5", "suite c5 ACC WA",
				"solve c5", "suite c5 ACC WA", "rollback c5", "solve c5", "suite c5 ACC WA", "rollback c5", "solve c5", "suite c5 ACC WA", "rollback c5",
				"escalate CODERS_STUCK",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The stories follow the seed's loop: one agent after the other.
			sequential := tc.scenario
			sequential.width = 1
			p := sequential.play(t, &orchestratetest.Journal{}, nil)
			require.NoError(t, p.err)
			assert.Equal(t, tc.outcome, p.res.Outcome)
			assert.Equal(t, tc.story, story(p.res.Events))
			assert.Equal(t, tc.vetted, vettedIDs(p.res))

			// Every agent of a phase at once: the same run, told in the same order; only a
			// stuck coder no longer keeps the coders after it from their turn.
			at := tc.scenario.play(t, &orchestratetest.Journal{}, nil)
			require.NoError(t, at.err)
			assert.Equal(t, tc.outcome, at.res.Outcome)
			assert.Equal(t, tc.vetted, vettedIDs(at.res))
			assert.Equal(t, p.res.Proposals, at.res.Proposals)
			if tc.outcome != orchestrate.CodersStuck {
				assert.Equal(t, tc.story, story(at.res.Events))
			}
		})
	}
}

func vettedIDs(res *orchestrate.Result) []string {
	var vetted []string
	for _, v := range res.Vetted {
		vetted = append(vetted, v.ID)
	}
	return vetted
}

// TestRevivalBranches walks every branch of attempt_revival. In round 1 tester t1 goes to
// sleep with tests A and B; testers t2 and t3 get X and Y vetted, which sends coders c3, c4
// and c5 to their second versions; in round 2 t1's stacked tests are classified again.
func TestRevivalBranches(t *testing.T) {
	c := func(names ...string) []string { return names }
	base := map[string][]string{
		"X": c("c1@1", "c2@1", "c3@1", "c3@2", "c4@2", "c5@2"),
		"Y": c("c1@1", "c2@1", "c4@1", "c5@1", "c3@2", "c4@2", "c5@2"),
		"N": c("c1@1", "c2@1", "c3@2", "c4@2"),
		"W": c("*"),
	}
	tests := []struct {
		name    string
		a, b    []string
		more    []string // t1's proposals after A and B
		story   []string // the round-2 tester turn of t1
		history []string // t1's history at the end
	}{
		{
			name:    "test 1 is IDEAL now: wake at checkpoint B, thank, keep test 1",
			a:       c("c1@1", "c3@2", "c4@2"),
			story:   []string{"classify t1-1 IDEAL 3/5", "revive t1 t1-1", "rollback t1", "thank t1"},
			history: []string{"user: Please propose one more test.", "tester: A", "user: Thank you, that test is useful."},
		},
		{
			name:  "test 1 is TOO_WEAK now: asked once more, the new test is IDEAL",
			a:     c("c1@1", "c2@1", "c3@2", "c4@2", "c5@2"),
			more:  []string{"N"},
			story: []string{"classify t1-1 TOO_WEAK 5/5", "revive t1 t1-1", "rollback t1", "classify t1-3 IDEAL 4/5", "thank t1"},
			history: []string{"user: Please propose one more test.", "tester: A",
				"user: That test was too straightforward. Please try something more demanding.", "tester: N",
				"user: Thank you, that test is useful."},
		},
		{
			name:    "test 1 is TOO_WEAK now and so is the next: back to checkpoint A and propose_test",
			a:       c("c1@1", "c2@1", "c3@2", "c4@2", "c5@2"),
			more:    []string{"W", "N"},
			story:   []string{"classify t1-1 TOO_WEAK 5/5", "revive t1 t1-1", "rollback t1", "classify t1-3 TOO_WEAK 5/5", "rollback t1", "classify t1-4 IDEAL 4/5", "thank t1"},
			history: []string{"user: Please propose one more test.", "tester: N", "user: Thank you, that test is useful."},
		},
		{
			name:  "both stacked tests still TOO_HARD: stay asleep",
			story: []string{"classify t1-1 TOO_HARD 0/5", "classify t1-2 TOO_HARD 0/5"},
			history: []string{"user: Please propose one more test.", "tester: A",
				"user: That test was hard to satisfy. Please try something more approachable that still checks something meaningful.", "tester: B"},
		},
		{
			name:  "test 1 still TOO_HARD, test 2 IDEAL now: wake, thank, keep test 2",
			b:     c("c1@1", "c3@2", "c4@2"),
			story: []string{"classify t1-1 TOO_HARD 0/5", "classify t1-2 IDEAL 3/5", "revive t1 t1-2", "thank t1"},
			history: []string{"user: Please propose one more test.", "tester: A",
				"user: That test was hard to satisfy. Please try something more approachable that still checks something meaningful.", "tester: B",
				"user: Thank you, that test is useful."},
		},
		{
			name:    "test 1 still TOO_HARD, test 2 TOO_WEAK now: back to checkpoint A and propose_test",
			b:       c("c1@1", "c2@1", "c3@2", "c4@2", "c5@2"),
			more:    []string{"N"},
			story:   []string{"classify t1-1 TOO_HARD 0/5", "classify t1-2 TOO_WEAK 5/5", "revive t1 t1-2", "rollback t1", "classify t1-3 IDEAL 4/5", "thank t1"},
			history: []string{"user: Please propose one more test.", "tester: N", "user: Thank you, that test is useful."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			passes := map[string][]string{"A": tc.a, "B": tc.b}
			for k, v := range base {
				passes[k] = v
			}
			s := scenario{
				versions:  []int{1, 1, 2, 2, 2},
				testers:   [][]string{append([]string{"A", "B"}, tc.more...), {"X"}, {"Y"}},
				passes:    passes,
				maxRounds: 2,
			}
			p := s.play(t, &orchestratetest.Journal{}, nil)
			require.NoError(t, p.err)
			got := story(p.res.Events)
			assert.Subset(t, got, []string{"hibernate t1", "vet t2 t2-1", "vet t3 t3-1"})
			assert.Equal(t, tc.story, round2Turn(got, "t1"), "round 2, tester t1:\n%s", strings.Join(got, "\n"))
			assert.Equal(t, tc.history, p.testers[0].History, "what t1 remembers")
		})
	}
}

// round2Turn cuts t1's turn out of round 2: from the first classification of one of its
// tests up to the first event about tester t2.
func round2Turn(story []string, tester string) []string {
	var out []string
	in := false
	for _, line := range story {
		switch {
		case line == "round 2":
			in = true
		case !in:
		case strings.Contains(line, "t2"):
			return out
		case strings.Contains(line, tester):
			out = append(out, line)
		}
	}
	return out
}

func TestRoundBudgetEndsTheRunWithEverythingFound(t *testing.T) {
	s := scenario{
		versions:  []int{1, 1, 1, 1, 2},
		testers:   [][]string{{"split", "split2"}},
		passes:    map[string][]string{"split": {"c1@1", "c2@1", "c3@1", "c4@1", "c5@2"}, "split2": {"c1@1", "c2@1", "c3@1", "c5@2"}},
		maxRounds: 2,
	}
	p := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.BudgetExhausted, p.res.Outcome)
	assert.Equal(t, 2, p.res.Rounds)
	assert.Len(t, p.res.Vetted, 2, "the tests vetted in the last round are kept")
	assert.Contains(t, p.res.Reason, "max_rounds (2)")
}
