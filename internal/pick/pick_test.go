package pick_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/pick"
)

// run is four coders that all pass the suite, changed the base by 10 lines each, and have
// no scores: each case below changes what it is about.
func run(edit func(map[string]*pick.Coder)) pick.Input {
	in := pick.Input{Protocol: "dixit", Vetted: 3, DualTests: 7, Counted: true, Probed: true, Sized: true}
	coders := map[string]*pick.Coder{}
	for _, name := range []string{"c1", "c2", "c3", "c4"} {
		coders[name] = &pick.Coder{Name: name, Passes: true, Lines: 10}
	}
	if edit != nil {
		edit(coders)
	}
	for _, name := range []string{"c1", "c2", "c3", "c4"} {
		in.Coders = append(in.Coders, *coders[name])
	}
	return in
}

func steps(ch pick.Choice) []pick.Step {
	var out []pick.Step
	for _, r := range ch.Reasons {
		out = append(out, r.Step)
	}
	return out
}

func TestTheHybridRuleRanksByDualAgreementThenTheProbeThenSizeThenOrder(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(map[string]*pick.Coder)
		want   string
		ranked []string
		steps  []pick.Step
		last   pick.Reason
	}{
		{
			name: "a unique top dual-agreement score decides",
			edit: func(c map[string]*pick.Coder) { c["c1"].Dual, c["c2"].Dual, c["c3"].Dual, c["c4"].Dual = 4, 12, 9, 2 },
			want: "c2", ranked: []string{"c2", "c3", "c1", "c4"},
			steps: []pick.Step{pick.StepCandidates, pick.StepDual},
			last:  pick.Reason{Step: pick.StepDual, Coders: []string{"c2"}, Score: 12, Decided: true, Narrowed: true},
		},
		{
			name: "tied on dual agreement, the probe decides",
			edit: func(c map[string]*pick.Coder) {
				c["c2"].Dual, c["c3"].Dual = 9, 9
				c["c2"].Agreement, c["c3"].Agreement = 5, 8
			},
			want: "c3", ranked: []string{"c3", "c2", "c1", "c4"},
			steps: []pick.Step{pick.StepCandidates, pick.StepDual, pick.StepProbe},
			last:  pick.Reason{Step: pick.StepProbe, Coders: []string{"c3"}, Score: 8, Decided: true, Narrowed: true},
		},
		{
			name: "tied on both, the smallest change, its own tests not counted",
			edit: func(c map[string]*pick.Coder) {
				c["c1"].Lines, c["c1"].OwnTests = 60, 55
				c["c2"].Lines = 30
			},
			want: "c1", ranked: []string{"c1", "c3", "c4", "c2"},
			steps: []pick.Step{pick.StepCandidates, pick.StepDual, pick.StepProbe, pick.StepSize},
			last:  pick.Reason{Step: pick.StepSize, Coders: []string{"c1"}, Score: 5, Decided: true, Narrowed: true},
		},
		{
			name: "size narrows without deciding: the configured order",
			edit: func(c map[string]*pick.Coder) { c["c1"].Lines = 30 },
			want: "c2", ranked: []string{"c2", "c3", "c4", "c1"},
			steps: []pick.Step{pick.StepCandidates, pick.StepDual, pick.StepProbe, pick.StepSize, pick.StepOrder},
			last:  pick.Reason{Step: pick.StepOrder, Coders: []string{"c2", "c3", "c4"}},
		},
		{
			name: "a coder that changed nothing is left out while others changed something",
			edit: func(c map[string]*pick.Coder) { c["c1"].Lines, c["c1"].Dual = 0, 99 },
			want: "c2", ranked: []string{"c2", "c3", "c4"},
			steps: []pick.Step{pick.StepCandidates, pick.StepUnchanged, pick.StepDual, pick.StepProbe, pick.StepSize, pick.StepOrder},
			last:  pick.Reason{Step: pick.StepOrder, Coders: []string{"c2", "c3", "c4"}},
		},
		{
			name: "a coder failing the suite is never picked while another passes it",
			edit: func(c map[string]*pick.Coder) { c["c4"].Passes, c["c4"].Dual = false, 50 },
			want: "c1", ranked: []string{"c1", "c2", "c3"},
			steps: []pick.Step{pick.StepCandidates, pick.StepDual, pick.StepProbe, pick.StepSize, pick.StepOrder},
			last:  pick.Reason{Step: pick.StepOrder, Coders: []string{"c1", "c2", "c3"}},
		},
		{
			name: "the only candidate",
			edit: func(c map[string]*pick.Coder) { c["c1"].Passes, c["c2"].Passes, c["c4"].Passes = false, false, false },
			want: "c3", ranked: []string{"c3"},
			steps: []pick.Step{pick.StepOnly},
			last:  pick.Reason{Step: pick.StepOnly},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := run(tc.edit)
			before := slices.Clone(in.Coders)
			ch := pick.Choose(pick.Hybrid, in)
			assert.Equal(t, tc.want, ch.Coder)
			assert.True(t, ch.Agreed)
			assert.Equal(t, tc.ranked, ch.Ranked)
			assert.Equal(t, tc.steps, steps(ch))
			assert.Equal(t, tc.last, ch.Reasons[len(ch.Reasons)-1])
			assert.Equal(t, before, in.Coders, "a rule changes nothing it is given")
		})
	}
}

func TestTheHybridRuleWithoutMeasuresFallsToSizeThenOrder(t *testing.T) {
	in := run(func(c map[string]*pick.Coder) { c["c3"].Lines = 4 })
	in.DualTests, in.Probed = 0, false
	ch := pick.Choose(pick.Hybrid, in)
	assert.Equal(t, "c3", ch.Coder)
	assert.Equal(t, []pick.Step{pick.StepCandidates, pick.StepSize}, steps(ch), "no dual step without proposed tests, no probe step without a probe")

	in = run(nil)
	in.Sized = false
	for i := range in.Coders {
		in.Coders[i].Lines = 0
	}
	ch = pick.Choose(pick.Hybrid, in)
	assert.Equal(t, "c1", ch.Coder, "unmeasured sizes leave nobody out")
	assert.NotContains(t, steps(ch), pick.StepUnchanged)
	size := ch.Reasons[len(ch.Reasons)-2]
	assert.Equal(t, pick.Reason{Step: pick.StepSize, Coders: []string{"c1", "c2", "c3", "c4"}}, size, "the same size: not narrowed")
}

func TestWithNoCandidateTheHybridRuleIsCodeTs(t *testing.T) {
	in := run(func(c map[string]*pick.Coder) {
		for _, coder := range c {
			coder.Passes = false
		}
		c["c2"].Dual, c["c4"].Dual = 3, 8
	})
	ch := pick.Choose(pick.Hybrid, in)
	assert.Equal(t, "c4", ch.Coder)
	assert.False(t, ch.Agreed)
	assert.Equal(t, []string{}, ch.Candidates)
	assert.Equal(t, []string{"c4", "c2", "c1", "c3"}, ch.Ranked)
	assert.Equal(t, []pick.Reason{{Step: pick.StepNoneDual, Score: 8}}, ch.Reasons)

	in = run(func(c map[string]*pick.Coder) {
		for _, coder := range c {
			coder.Passes = false
		}
		c["c1"].SuitePassed, c["c3"].SuitePassed, c["c4"].SuitePassed = 1, 2, 2
	})
	ch = pick.Choose(pick.Hybrid, in)
	assert.Equal(t, "c3", ch.Coder, "no dual score: the most tests passed in the last suite run, then the order")
	assert.Equal(t, []pick.Reason{{Step: pick.StepNoneSuite, Score: 2}}, ch.Reasons)
}

func TestWhatComesBeforeTheRule(t *testing.T) {
	never := func(pick.Input) pick.Choice {
		t.Error("the rule is not asked")
		return pick.Choice{}
	}

	in := run(func(c map[string]*pick.Coder) { c["c4"].Passes = false })
	in.Accepted = "c4"
	ch := pick.Choose(never, in)
	assert.Equal(t, "c4", ch.Coder, "a human's accept overrides the rule")
	assert.False(t, ch.Agreed, "c4 fails a vetted test")
	assert.Equal(t, []string{"c1", "c2", "c3"}, ch.Candidates)
	assert.Equal(t, []pick.Step{pick.StepAccepted}, steps(ch))
	in.Accepted = "c1"
	assert.True(t, pick.Choose(never, in).Agreed)

	in = run(nil)
	in.Protocol, in.Final = "tdg", "c2"
	ch = pick.Choose(never, in)
	assert.Equal(t, pick.Choice{Coder: "c2", Agreed: true, Candidates: []string{"c2"}, Ranked: []string{"c2"},
		Reasons: []pick.Reason{{Step: pick.StepProtocol}}}, ch, "another protocol chose for itself")
	in.Final = ""
	ch = pick.Choose(never, in)
	assert.Equal(t, "c1", ch.Coder)
	assert.False(t, ch.Agreed)
	assert.Equal(t, []string{}, ch.Candidates)
	assert.Equal(t, []pick.Step{pick.StepProtocolNone}, steps(ch))
}

func TestWithNoVettedTestNoTestBacksThePick(t *testing.T) {
	in := run(func(c map[string]*pick.Coder) { c["c1"].Lines = 0; c["c3"].Lines = 2 })
	in.Vetted = 0
	ch := pick.Choose(pick.Hybrid, in)
	assert.Equal(t, "c3", ch.Coder)
	assert.False(t, ch.Agreed, "every coder passes an empty suite: that is no agreement")
	assert.Equal(t, []pick.Step{pick.StepNoVetted, pick.StepUnchanged, pick.StepDual, pick.StepProbe, pick.StepSize}, steps(ch),
		"no \"as do the others\"")

	in = run(func(c map[string]*pick.Coder) { c["c1"].Passes, c["c2"].Passes, c["c3"].Passes = false, false, false })
	in.Vetted = 0
	assert.Equal(t, []pick.Step{pick.StepNoVetted, pick.StepOnly}, steps(pick.Choose(pick.Hybrid, in)))

	in = pick.Input{Vetted: 0}
	ch = pick.Choose(pick.Hybrid, in)
	assert.Empty(t, ch.Coder, "no coder at all")
	assert.Equal(t, []pick.Step{pick.StepNoneSuite}, steps(ch))
}

func TestRulesAreNamed(t *testing.T) {
	rule, ok := pick.Named(pick.Default)
	require.True(t, ok)
	in := run(func(c map[string]*pick.Coder) { c["c2"].Dual = 1 })
	assert.Equal(t, pick.Hybrid(in), rule(in))
	assert.Contains(t, pick.Names(), pick.Default)
	most, ok := pick.Named("most_tests")
	require.True(t, ok)
	assert.Equal(t, pick.MostTests(in), most(in))
	empty, _ := pick.Named("")
	assert.Equal(t, pick.Hybrid(in), empty(in), "no setting is the default")
	_, ok = pick.Named("majority")
	assert.False(t, ok)
}

func TestMostTestsRanksTheCandidatesByProposedTestsPassedFirst(t *testing.T) {
	// c2 has the best dual agreement (its wrong answer is shared), c3 passes the most
	// proposed tests: the hybrid picks c2, most_tests c3, and says why.
	in := run(func(c map[string]*pick.Coder) {
		c["c1"].Dual, c["c2"].Dual, c["c3"].Dual, c["c4"].Dual = 3, 10, 6, 3
		c["c1"].Proposed, c["c2"].Proposed, c["c3"].Proposed, c["c4"].Proposed = 3, 5, 6, 3
		c["c4"].Passes = false
		c["c4"].Proposed = 7 // passes more, but fails a vetted test: no candidate
	})
	assert.Equal(t, "c2", pick.Choose(pick.Hybrid, in).Coder)
	ch := pick.Choose(pick.MostTests, in)
	assert.Equal(t, "c3", ch.Coder)
	assert.True(t, ch.Agreed)
	assert.Equal(t, []string{"c3", "c2", "c1"}, ch.Ranked)
	assert.Equal(t, []pick.Step{pick.StepCandidates, pick.StepProposed}, steps(ch))
	assert.Equal(t, pick.Reason{Step: pick.StepProposed, Coders: []string{"c3"}, Score: 6, Decided: true, Narrowed: true}, ch.Reasons[1])

	// Tied on tests passed, dual agreement decides, then the rest as in the hybrid.
	in = run(func(c map[string]*pick.Coder) {
		c["c1"].Proposed, c["c2"].Proposed, c["c3"].Proposed, c["c4"].Proposed = 6, 6, 6, 2
		c["c1"].Dual, c["c2"].Dual, c["c3"].Dual, c["c4"].Dual = 6, 6, 12, 2
	})
	ch = pick.Choose(pick.MostTests, in)
	assert.Equal(t, "c3", ch.Coder)
	assert.Equal(t, []pick.Step{pick.StepCandidates, pick.StepProposed, pick.StepDual}, steps(ch))
	assert.Equal(t, []string{"c3", "c1", "c2"}, ch.Reasons[1].Coders, "the tied, best first")
}

func TestWithNoCandidateMostTestsPicksTheCoderPassingTheMostProposedTests(t *testing.T) {
	in := run(func(c map[string]*pick.Coder) {
		for _, name := range []string{"c1", "c2", "c3", "c4"} {
			c[name].Passes = false
		}
		c["c1"].Dual, c["c2"].Dual = 9, 2
		c["c1"].Proposed, c["c2"].Proposed = 3, 4
	})
	ch := pick.Choose(pick.MostTests, in)
	assert.Equal(t, "c2", ch.Coder)
	assert.False(t, ch.Agreed)
	assert.Equal(t, []pick.Reason{{Step: pick.StepNoneProposed, Score: 4}}, ch.Reasons)
	assert.Equal(t, "c1", pick.Choose(pick.Hybrid, in).Coder, "the hybrid falls back to CodeT's pick")
}
