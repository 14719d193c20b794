package rules

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	P = Pass
	F = Fail
	E = Env
)

// handInstances are three small instances whose figures are worked by hand below, each
// with one panel (coders 0, 1, 2):
//
//   - A: panel c0 ✓, c1 ✓, c2 ✗ (band 0.5–0.8); held out c3 ✗, c4 ✓, c5 ✗, c6 ✗ (an env
//     cell on t0). t0 is a right reproduction test, t1 right but passes on the base, t2 wrong.
//   - B: panel d0 ✓, d1 ✗, d2 ✗ (band < 0.5); d0's env cell on t0 takes t0 out of the panel.
//   - C: panel e0–e2 all ✓ (band > 0.8), every one passes the only test: the seed rule keeps
//     nothing, so e3 ✗ (held out) gets no verdict.
func handInstances() []Instance {
	a := Instance{ID: "A",
		Coders: []Coder{{Name: "c0", Resolved: true, Group: "a"}, {Name: "c1", Resolved: true, Group: "b"},
			{Name: "c2", Group: "c"}, {Name: "c3", Group: "c"}, {Name: "c4", Resolved: true, Group: "d"},
			{Name: "c5", Group: "a"}, {Name: "c6", Group: "e"}},
		Tests: []Test{{Name: "t0", Gold: P, Base: F}, {Name: "t1", Gold: P, Base: P}, {Name: "t2", Gold: F, Base: F}},
		Cells: [][]Cell{{P, P, F}, {P, P, F}, {F, P, P}, {F, P, P}, {P, F, F}, {P, P, F}, {E, P, F}}}
	b := Instance{ID: "B",
		Coders: []Coder{{Name: "d0", Resolved: true, Group: "w"}, {Name: "d1", Group: "x"}, {Name: "d2", Group: "x"}},
		Tests:  []Test{{Name: "t0", Gold: P, Base: F}, {Name: "t1", Gold: E, Base: E}},
		Cells:  [][]Cell{{E, P}, {F, F}, {F, P}}}
	c := Instance{ID: "C",
		Coders: []Coder{{Name: "e0", Resolved: true, Group: "1"}, {Name: "e1", Resolved: true, Group: "2"},
			{Name: "e2", Resolved: true, Group: "3"}, {Name: "e3", Group: "4"}},
		Tests: []Test{{Name: "t0", Gold: P, Base: P}},
		Cells: [][]Cell{{P}, {P}, {P}, {F}}}
	return []Instance{a, b, c}
}

func handCorpus() Corpus {
	return Corpus{Name: "hand", Kind: "fixed", Instances: handInstances(),
		Draw: func(k int, _ int64, _ int) Panels { return Panels{{{0, 1, 2}}, {{0, 1, 2}}, {{0, 1, 2}}} }}
}

func runHand(t *testing.T) *Report {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Sizes, cfg.Resamples = []int{3}, 200
	rep, err := Run(context.Background(), handCorpus(), cfg, nil)
	require.NoError(t, err)
	return rep
}

func TestVettedSuitesOnHandWorkedPanels(t *testing.T) {
	row, ok := runHand(t).Row(3, "all")
	require.True(t, ok)
	assert.Equal(t, 3, row.Panels)
	assert.Equal(t, 3, row.Instances)
	assert.InDelta(t, 1.0/6, row.EnvOut.Value, 1e-12, "B's t0 of 6 (panel, test) pairs")
	assert.Equal(t, HeldOut{Unresolved: 4, Resolved: 1}, row.HeldOut)

	cases := []struct {
		rule                                Rule
		kept, empty, precision, failsOnBase float64
		caught, failed, ifPasses, noVerdict float64
		caughtWithVerdict                   float64
		ifPassesDefined                     bool
	}{
		// seed keeps A's t0 and B's t1 (gold and base unknown), nothing on C.
		{Seed, 2.0 / 3, 1.0 / 3, 1, 1, 1.0 / 4, 0, 1.0 / 2, 2.0 / 5, 1.0 / 2, true},
		// threshold adds A's t1 and C's t0.
		{Threshold, 4.0 / 3, 0, 1, 1.0 / 3, 2.0 / 4, 1, 0, 1.0 / 5, 2.0 / 3, true},
		// repro: A's t0 and t2; B's tests have no base result; C's t0 passes on the base.
		{Repro, 2.0 / 3, 2.0 / 3, 1.0 / 2, 1, 3.0 / 4, 1, 0, 1.0 / 5, 3.0 / 3, false},
		{SeedRepro, 1.0 / 3, 2.0 / 3, 1, 1, 1.0 / 4, 0, 1.0 / 2, 2.0 / 5, 1.0 / 2, true},
		{ThresholdRepro, 1.0 / 3, 2.0 / 3, 1, 1, 1.0 / 4, 0, 1.0 / 2, 2.0 / 5, 1.0 / 2, true},
		// all: A's three, B's t1 (t0 is out of the panel), C's t0.
		{All, 5.0 / 3, 0, 3.0 / 4, 2.0 / 4, 4.0 / 4, 1, 0, 0, 1, false},
		// oracle: A's t0, t1; C's t0 (B's t0 is out of the panel, t1's gold unknown).
		{Oracle, 1, 1.0 / 3, 1, 1.0 / 3, 2.0 / 4, 1, 0, 1.0 / 5, 2.0 / 3, true},
	}
	for _, c := range cases {
		t.Run(string(c.rule), func(t *testing.T) {
			f, ok := row.Rule(c.rule)
			require.True(t, ok)
			assert.InDelta(t, c.kept, f.Kept.Value, 1e-12, "kept per panel")
			assert.InDelta(t, c.empty, f.Empty.Value, 1e-12, "empty")
			assert.InDelta(t, c.precision, f.GoldPrecision.Value, 1e-12, "gold precision")
			assert.InDelta(t, c.failsOnBase, f.FailsOnBase.Value, 1e-12, "fails on base")
			assert.InDelta(t, c.caught, f.Caught.Value, 1e-12, "caught")
			assert.InDelta(t, c.failed, f.ResolvedFailed.Value, 1e-12, "resolved failed")
			assert.Equal(t, c.ifPassesDefined, f.ResolvedIfPasses.Defined(), "P(resolved | passes) defined")
			if c.ifPassesDefined {
				assert.InDelta(t, c.ifPasses, f.ResolvedIfPasses.Value, 1e-12, "P(resolved | passes)")
			}
			assert.InDelta(t, c.noVerdict, f.NoVerdict.Value, 1e-12, "no verdict")
			assert.InDelta(t, c.caughtWithVerdict, f.CaughtWithVerdict.Value, 1e-12, "caught given a verdict")
		})
	}
}

func TestPicksOnHandWorkedPanels(t *testing.T) {
	row, _ := runHand(t).Row(3, "all")
	// pick: {A, B, C} values; made: panels that did not fall back.
	cases := []struct {
		pick    string
		a, b, c float64
		made    float64
	}{
		// A: c0, c1 pass {t0, t1} (score 2×2), c2 {t1, t2} (2×1). B, on t1 alone: d0, d2 (1×2).
		// C: one group of three.
		{PickCodeT, 1, 0.5, 1, 3},
		{PickConsensus(Seed), 1, 0.5, 1, 2},            // C keeps nothing: uniform
		{PickHybrid(Seed), 1, 0.5, 1, 2},               //
		{PickConsensus(Repro), 2.0 / 3, 1.0 / 3, 1, 0}, // nobody passes A's {t0, t2}
		{PickHybrid(Repro), 1, 0.5, 1, 0},              // falls back to CodeT
		{PickConsensus(All), 2.0 / 3, 0.5, 0, 2},       // C's e0–e2 pass: 1; fixed below
		{PickMajority, 2.0 / 3, 0, 1, 1},               // only B has a group of two (d1, d2)
		{PickMaxPass, 2.0 / 3, 0.5, 1, 3},              //
		{PickRandom, 2.0 / 3, 1.0 / 3, 1, 3},           //
		{PickOracle, 1, 1, 1, 3},                       //
	}
	cases[5].c = 1
	for _, c := range cases {
		f, ok := row.Pick(c.pick)
		require.True(t, ok, c.pick)
		assert.InDelta(t, (c.a+c.b+c.c)/3, f.Correct.Value, 1e-12, c.pick)
		assert.InDelta(t, c.made/3, f.Made.Value, 1e-12, c.pick+" made")
		assert.InDelta(t, (c.a+c.b+c.c)/3, f.Solvable.Value, 1e-12, c.pick+": every panel holds a resolved coder")
	}
	d, ok := row.PickDiff(PickCodeT, PickRandom)
	require.True(t, ok)
	assert.InDelta(t, (1+0.5+1)/3-(2.0/3+1.0/3+1)/3, d.Value, 1e-12)
	assert.LessOrEqual(t, d.Lo, d.Hi)
}

func TestBandsSplitThePanels(t *testing.T) {
	rep := runHand(t)
	for band, id := range map[string]string{"< 0.5": "B", "0.5–0.8": "A", "> 0.8": "C"} {
		row, ok := rep.Row(3, band)
		require.True(t, ok, band)
		assert.Equal(t, 1, row.Panels, "%s holds %s's panel", band, id)
		random, _ := row.Pick(PickRandom)
		want := map[string]float64{"A": 2.0 / 3, "B": 1.0 / 3, "C": 1}[id]
		assert.InDelta(t, want, random.Correct.Value, 1e-12, band)
	}
	assert.Equal(t, []int{1, 1, 1, 2, 2, 3}, bandsOf(5)) // 0.8 is in the middle band
	assert.Equal(t, []int{1, 1, 2, 3}, bandsOf(3))
	assert.Equal(t, []int{1, 1, 1, 1, 2, 2, 3, 3}, bandsOf(7))
}

func bandsOf(k int) []int {
	var out []int
	for c := 0; c <= k; c++ {
		out = append(out, bandOf(c, k))
	}
	return out
}

func TestKeepRulesAtK5(t *testing.T) {
	repro := Test{Gold: P, Base: F}
	guard := Test{Gold: P, Base: P}
	unknown := Test{Gold: E, Base: E}
	for p, want := range map[int][5]bool{ // seed, threshold, repro, seed+repro on repro; seed on unknown
		0: {false, false, true, false, false},
		2: {false, false, true, false, false},
		3: {true, true, true, true, true},
		4: {true, true, true, true, true},
		5: {false, true, true, false, false},
	} {
		got := [5]bool{Seed.keep(p, 5, repro), Threshold.keep(p, 5, repro), Repro.keep(p, 5, repro),
			SeedRepro.keep(p, 5, repro), Seed.keep(p, 5, unknown)}
		assert.Equal(t, want, got, "p=%d", p)
		assert.False(t, Repro.keep(p, 5, guard) || Repro.keep(p, 5, unknown) || Oracle.keep(p, 5, unknown))
		assert.True(t, All.keep(p, 5, unknown))
	}
}

func TestIntervalsAreReproducible(t *testing.T) {
	a, b := runHand(t), runHand(t)
	ra, _ := a.Row(3, "all")
	rb, _ := b.Row(3, "all")
	assert.Equal(t, ra.Rules, rb.Rules)
	assert.Equal(t, ra.Picks, rb.Picks)
	codeT, _ := ra.Pick(PickCodeT)
	assert.Less(t, codeT.Correct.Lo, codeT.Correct.Hi, "three different instances: the interval has width")
	assert.LessOrEqual(t, codeT.Correct.Lo, codeT.Correct.Value)
	assert.GreaterOrEqual(t, codeT.Correct.Hi, codeT.Correct.Value)

	// Three copies of one instance: every resample is the same, the interval a point.
	same := handCorpus()
	same.Instances = []Instance{same.Instances[0], same.Instances[0], same.Instances[0]}
	same.Instances[1].ID, same.Instances[2].ID = "A2", "A3"
	cfg := DefaultConfig()
	cfg.Sizes, cfg.Resamples = []int{3}, 100
	rep, err := Run(context.Background(), same, cfg, nil)
	require.NoError(t, err)
	row, _ := rep.Row(3, "all")
	seed, _ := row.Rule(Seed)
	assert.Equal(t, Est{Value: 1.0 / 3, Lo: 1.0 / 3, Hi: 1.0 / 3, Over: 9}, seed.Caught)
}

func TestDrawUniformIsSeededPerInstance(t *testing.T) {
	ins := handInstances()
	p1 := DrawUniform(ins, 3, 7, 20)
	p2 := DrawUniform([]Instance{ins[2], ins[0]}, 3, 7, 20)
	assert.Equal(t, p1[0], p2[1], "A's panels do not depend on the other instances")
	assert.Equal(t, p1[2], p2[0])
	assert.NotEqual(t, p1[0], DrawUniform(ins, 3, 8, 20)[0], "another seed, other panels")
	assert.Len(t, p1[0], 20)
	seen := map[int]int{}
	for _, panel := range p1[0] {
		require.NoError(t, checkPanel(&ins[0], panel))
		for _, c := range panel {
			seen[c]++
		}
	}
	assert.Len(t, seen, 7, "every coder of A's pool of 7 appears in some panel")
	assert.Empty(t, DrawUniform(ins, 4, 7, 20)[1], "B has 3 coders: no panel of 4")
}

func TestRunRefusesBadInput(t *testing.T) {
	c := handCorpus()
	c.Instances[1].Cells[2] = []Cell{F}
	_, err := Run(context.Background(), c, DefaultConfig(), nil)
	assert.ErrorContains(t, err, "hand: B: coder d2 has 1 cells for 2 tests")

	cfg := DefaultConfig()
	cfg.Panels = 0
	_, err = Run(context.Background(), handCorpus(), cfg, nil)
	assert.ErrorContains(t, err, "panels per instance: 0")

	rules, err := ParseRules("seed, repro")
	require.NoError(t, err)
	assert.Equal(t, []Rule{Seed, Repro}, rules)
	_, err = ParseRules("seed,majority")
	assert.ErrorContains(t, err, `keep rule "majority"`)
}

func TestSolvableLeavesOutPanelsWithoutAResolvedCoder(t *testing.T) {
	c := handCorpus()
	c.Instances = append(c.Instances, Instance{ID: "D",
		Coders: []Coder{{Name: "f0", Group: "1"}, {Name: "f1", Group: "2"}, {Name: "f2", Group: "3"}},
		Tests:  []Test{{Name: "t0", Gold: P, Base: F}}, Cells: [][]Cell{{P}, {F}, {P}}})
	c.Draw = func(int, int64, int) Panels { return Panels{{{0, 1, 2}}, {{0, 1, 2}}, {{0, 1, 2}}, {{0, 1, 2}}} }
	cfg := DefaultConfig()
	cfg.Sizes, cfg.Resamples = []int{3}, 0
	rep, err := Run(context.Background(), c, cfg, nil)
	require.NoError(t, err)
	row, _ := rep.Row(3, "all")
	codeT, _ := row.Pick(PickCodeT)
	assert.InDelta(t, 2.5/4, codeT.Correct.Value, 1e-12, "D's panel counts, at 0")
	assert.InDelta(t, 2.5/3, codeT.Solvable.Value, 1e-12, "D's panel has no resolved coder: left out")
	assert.Equal(t, 3.0, codeT.Solvable.Over)
}
