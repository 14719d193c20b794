package orchestrate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

func decision(t *testing.T, id, by string, words ...string) orchestrate.Decision {
	t.Helper()
	d, err := orchestrate.ParseDecision(words[0], words[1:], by, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	d.ID = id
	return d
}

// stuck: four coders agree on a wrong expectation in test t1-1; c4 is right, so it can
// never pass it, and the run stops CODERS_STUCK in round 2.
func stuck() scenario {
	return scenario{
		versions: []int{1, 1, 1, 1, 1},
		testers:  [][]string{{"wrong", "weak"}},
		passes:   map[string][]string{"wrong": {"c1@1", "c2@1", "c3@1", "c5@1"}, "weak": {"*"}},
	}
}

func TestADroppedTestReleasesTheStuckCoder(t *testing.T) {
	s := stuck()
	first := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, first.err)
	require.Equal(t, orchestrate.CodersStuck, first.res.Outcome)
	coders := "coders: c1, c2, c3, c4, c5"
	assert.Equal(t, []orchestrate.Offer{{"drop <test> <reason>", "tests: t1 (t1-1)"}, {"replace <coder>", coders}, {Usage: "continue"},
		{"accept <coder>", coders}}, orchestrate.Fitting(first.res.Standing))

	// The human drops the test; the same journal goes on from the escalation.
	s.decisions = []orchestrate.Decision{decision(t, "c-1", "alice", "drop", "t1", "wrong", "expectation")}
	p := s.play(t, first.journal, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.TestersExhausted, p.res.Outcome)
	assert.Empty(t, p.res.Vetted, "the test left the suite")
	got := story(p.res.Events)
	assert.Equal(t, []string{"escalate CODERS_STUCK", "decide alice drop t1: wrong expectation", "round 3",
		"classify t1-2 TOO_WEAK 5/5"}, got[len(story(first.res.Events))-1:len(story(first.res.Events))+3])
	require.Len(t, p.res.Decisions, 1)
	assert.Equal(t, 2, p.res.Decisions[0].Round, "answered the escalation of round 2")
	assert.Empty(t, p.res.Decisions[0].Refused)

	// Replayed, the decision is applied again from the journal, not asked for again.
	again := s.play(t, p.journal, nil)
	require.NoError(t, again.err)
	assert.Equal(t, p.res.Events[len(p.res.Events)-1], again.res.Events[len(again.res.Events)-1])
	assert.Zero(t, again.res.Live, "nothing performed twice")
	assert.Len(t, again.res.Decisions, 1)
}

func TestAReplacedCoderStartsFromTheSpecAndCatchesUp(t *testing.T) {
	s := stuck()
	s.passes["wrong"] = append(s.passes["wrong"], "c4_2@1")
	s.replacements = map[string]int{"c4_2": 1}
	s.decisions = []orchestrate.Decision{decision(t, "c-2", "bob", "replace", "c4")}
	p := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.TestersExhausted, p.res.Outcome)
	var names []string
	for _, c := range p.res.Coders {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"c1", "c2", "c3", "c4_2", "c5"}, names, "the fresh coder takes the stuck one's place")
	got := strings.Join(story(p.res.Events), "\n")
	assert.Contains(t, got, "decide bob replace c4\nsolve c4_2\nround 3\nsuite c1 ACC\nsuite c2 ACC\nsuite c3 ACC\nsuite c4_2 ACC\nsuite c5 ACC",
		"it solves from the spec, then passes the whole suite before the testers' turn")
	assert.Equal(t, []string{"t1-1"}, ids(p.res.Vetted))
}

func TestWokenTestersProposeAgain(t *testing.T) {
	s := scenario{
		versions: []int{1, 1, 1, 1, 2},
		testers:  [][]string{{"h1", "h2", "ok"}, {"h3", "h4"}},
		passes:   map[string][]string{"ok": {"c1@1", "c2@1", "c3@1", "c4@1", "c5@2"}},
	}
	first := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, first.err)
	require.Equal(t, orchestrate.AllTestersHibernated, first.res.Outcome)
	assert.Equal(t, []orchestrate.Offer{{Usage: "wake"}, {Usage: "continue"}, {"accept <coder>", "coders: c1, c2, c3, c4, c5"}},
		orchestrate.Fitting(first.res.Standing))

	s.decisions = []orchestrate.Decision{decision(t, "c-3", "carol", "wake")}
	p := s.play(t, first.journal, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.TestersExhausted, p.res.Outcome)
	assert.Equal(t, []string{"t1-3"}, ids(p.res.Vetted), "t1 woke at checkpoint A and its next test entered")
	got := strings.Join(story(p.res.Events), "\n")
	assert.Equal(t, 2, strings.Count(got, "revive "), "both sleeping testers were woken")
	assert.Contains(t, got, "decide carol wake\nround 2\nclassify t1-1 TOO_HARD 0/5\nclassify t1-2 TOO_HARD 0/5\nrevive t1\nrollback t1\nclassify t1-3 IDEAL 4/5",
		"attempt_revival first; its tests still too hard, the human's word wakes it at checkpoint A")
	for _, ts := range p.res.Testers {
		assert.Equal(t, "active", ts.State)
	}
}

func TestADecisionThatDoesNotFitChangesNothing(t *testing.T) {
	s := stuck()
	s.decisions = []orchestrate.Decision{
		decision(t, "c-4", "dave", "drop", "t9", "no such test"),
		decision(t, "c-5", "dave", "replace", "zed"),
	}
	p := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.CodersStuck, p.res.Outcome, "the run stays where it stopped")
	assert.Equal(t, []string{"t1-1"}, ids(p.res.Vetted))
	require.Len(t, p.res.Decisions, 2)
	assert.Contains(t, p.res.Decisions[0].Refused, `"t9" is not in the vetted suite (t1 t1-1)`)
	assert.Contains(t, p.res.Decisions[1].Refused, `there is no coder "zed"`)
	assert.ElementsMatch(t, []string{"c-4", "c-5"}, p.res.Standing.Decided, "taken up once, never asked about again")

	// A coder the population has no replacement for: refused when taken up, and the
	// run stays usable (a later decision is still taken).
	s = stuck()
	s.decisions = []orchestrate.Decision{decision(t, "c-8", "dave", "replace", "c4"), decision(t, "c-9", "dave", "drop", "t1", "wrong")}
	p = s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	require.Len(t, p.res.Decisions, 2)
	assert.Contains(t, p.res.Decisions[0].Refused, "no fresh coder can be brought in: no replacement c4_2")
	assert.Empty(t, p.res.Decisions[1].Refused)
	assert.Equal(t, orchestrate.TestersExhausted, p.res.Outcome)
}

func TestBudgetContinueAndAccept(t *testing.T) {
	base := func() scenario {
		return scenario{
			versions:  []int{1, 1, 1, 1, 2},
			testers:   [][]string{{"split", "split2", "split3"}},
			passes:    map[string][]string{"split": {"c1@1", "c2@1", "c3@1", "c4@1", "c5@2"}, "split2": {"c1@1", "c2@1", "c3@1", "c5@2"}, "split3": {"c1@1", "c2@1", "c3@1", "c5@2"}},
			maxRounds: 1,
		}
	}
	s := base()
	s.decisions = []orchestrate.Decision{decision(t, "b", "erin", "budget", "rounds", "2")}
	p := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.BudgetExhausted, p.res.Outcome)
	assert.Equal(t, 2, p.res.Rounds, "one more round, then the new budget")
	assert.Contains(t, p.res.Reason, "max_rounds (2)")

	s = base()
	s.decisions = []orchestrate.Decision{decision(t, "c", "erin", "continue")}
	p = s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, 2, p.res.Rounds, "continue gives max_rounds (1) more rounds")

	s = base()
	s.decisions = []orchestrate.Decision{decision(t, "a", "erin", "accept", "c3", "good", "enough")}
	p = s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.BudgetExhausted, p.res.Outcome)
	assert.Equal(t, "c3", p.res.Accepted)
	assert.Empty(t, orchestrate.Fitting(p.res.Standing), "an accepted run is over")
	assert.ErrorContains(t, orchestrate.Check(decision(t, "z", "erin", "continue"), p.res.Standing), "accepted")
}

// TestADecisionIsAppliedOnceAcrossACrash: the run is cut right after journalling the
// decision; the resumed run applies it from the journal, exactly once.
func TestADecisionIsAppliedOnceAcrossACrash(t *testing.T) {
	s := stuck()
	first := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, first.err)
	s.decisions = []orchestrate.Decision{decision(t, "c-6", "alice", "drop", "t1", "wrong")}
	cut := len(first.journal.Records) + 1
	p := s.play(t, first.journal, func(seq int) error {
		if seq == cut {
			return orchestrate.ErrInterrupted
		}
		return nil
	})
	require.ErrorIs(t, p.err, orchestrate.ErrInterrupted)
	resumed := s.play(t, p.journal, nil)
	require.NoError(t, resumed.err)
	assert.Equal(t, orchestrate.TestersExhausted, resumed.res.Outcome)
	require.Len(t, resumed.res.Decisions, 1)
	var decides int
	for _, rec := range resumed.journal.Records {
		if strings.Contains(string(rec), `"effect":"decide"`) {
			decides++
		}
	}
	assert.Equal(t, 1, decides)
}

func TestParseAndCheckDecisions(t *testing.T) {
	at := time.Now()
	for _, tc := range []struct {
		words []string
		err   string
	}{
		{[]string{"drop", "t1"}, "usage: drop <test> <reason>"},
		{[]string{"replace"}, "usage: replace <coder>"},
		{[]string{"replace", "../x"}, "is not a coder's name"},
		{[]string{"budget", "rounds", "-1"}, "not a whole number between 1 and 1000"},
		{[]string{"budget", "rounds", "9223372036854775807"}, "not a whole number between 1 and 1000"},
		{[]string{"budget", "tokens", "99999999999999999"}, "not a whole number between 1 and"},
		{[]string{"budget", "cost", "lots"}, "not an amount of dollars"},
		{[]string{"budget", "wall_time", "soon"}, "not a duration such as 2h"},
		{[]string{"drop", strings.Repeat("x", 101), "why"}, "too long"},
		{[]string{"budget", "coffee", "1"}, "not one of rounds, tokens, cost, wall_time"},
		{[]string{"launch"}, "is not a decision"},
	} {
		_, err := orchestrate.ParseDecision(tc.words[0], tc.words[1:], "u", at)
		assert.ErrorContains(t, err, tc.err, strings.Join(tc.words, " "))
	}
	st := orchestrate.Standing{Protocol: "dixit", Outcome: orchestrate.CodersStuck, Rounds: 3, Coders: []string{"amber", "basil"}, Replaceable: true,
		Vetted: []orchestrate.SuiteEntry{{ID: "ivy-3", Number: 1}, {ID: "kai-1", Number: 2}}, Tokens: 5000}
	check := func(words ...string) error {
		d, err := orchestrate.ParseDecision(words[0], words[1:], "u", at)
		require.NoError(t, err)
		return orchestrate.Check(d, st)
	}
	for _, ok := range [][]string{{"drop", "t2", "why"}, {"drop", "ivy-3", "why"}, {"drop", "2", "why"}, {"replace", "basil"},
		{"accept", "amber"}, {"budget", "rounds", "4"}, {"budget", "tokens", "6000"}, {"continue"}} {
		assert.NoError(t, check(ok...), strings.Join(ok, " "))
	}
	assert.ErrorContains(t, check("wake"), "no tester is asleep")
	assert.ErrorContains(t, orchestrate.Check(orchestrate.Decision{ID: "x", Verb: "budget", Args: []string{"rounds"}}, st), "needs 2 argument(s)",
		"a decision read back from a file is checked for its shape")
	assert.ErrorContains(t, check("budget", "rounds", "3"), "not above what the run has spent already (3)")
	assert.ErrorContains(t, check("budget", "tokens", "100"), "(5000)")
	st.Outcome, st.Crossed = orchestrate.BudgetExhausted, orchestrate.BudgetTokens
	assert.ErrorContains(t, check("continue"), "spent its tokens budget", "more rounds would cross a tokens budget again")
	assert.ErrorContains(t, check("budget", "rounds", "9"), "stopped on its tokens budget")
	assert.NoError(t, check("budget", "tokens", "9000"))
	assert.Equal(t, []orchestrate.Offer{{Usage: "budget tokens <amount>"}, {"accept <coder>", "coders: amber, basil"}}, orchestrate.Fitting(st))
	st.Outcome, st.Crossed, st.Replaceable = orchestrate.CodersStuck, "", false
	assert.ErrorContains(t, check("replace", "basil"), "cannot bring in fresh coders")
	st.Outcome = ""
	assert.ErrorContains(t, check("continue"), "has not stopped")
	st.Outcome, st.Protocol = orchestrate.TestersExhausted, "critics"
	assert.ErrorContains(t, check("continue"), "follows critics")
}

func ids(v []orchestrate.Vetted) []string {
	var out []string
	for _, t := range v {
		out = append(out, t.ID)
	}
	return out
}

// TestABudgetCrossedAnywhereCanBeRaised: the token budget runs out during the coders'
// first solves; raising it brings in the coders that had not solved and goes on.
func TestABudgetCrossedAnywhereCanBeRaised(t *testing.T) {
	s := scenario{
		versions: []int{1, 1, 1, 1, 2},
		testers:  [][]string{{"split", "weak"}},
		passes:   map[string][]string{"split": {"c1@1", "c2@1", "c3@1", "c4@1", "c5@2"}, "weak": {"*"}},
		budget:   config.Budget{Tokens: 200},
	}
	first := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, first.err)
	require.Equal(t, orchestrate.BudgetExhausted, first.res.Outcome)
	assert.Equal(t, orchestrate.BudgetTokens, first.res.Standing.Crossed)
	assert.Equal(t, orchestrate.Offer{Usage: "budget tokens <amount>"}, orchestrate.Fitting(first.res.Standing)[0])

	s.decisions = []orchestrate.Decision{decision(t, "b-1", "erin", "budget", "tokens", "100000")}
	p := s.play(t, first.journal, nil)
	require.NoError(t, p.err)
	assert.Equal(t, orchestrate.TestersExhausted, p.res.Outcome)
	assert.Equal(t, []string{"t1-1"}, ids(p.res.Vetted))
	for _, c := range p.res.Coders {
		assert.NotZero(t, c.Solves, "coder %s solved after the budget was raised", c.Name)
	}
}
