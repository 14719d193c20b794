package replay

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sliceRun(t *testing.T, cfg Config) *Report {
	t.Helper()
	rep, err := Run(context.Background(), loadSlice(t), cfg, nil)
	require.NoError(t, err)
	return rep
}

// Diverse K=9 is possible on only two of the slice's four problems: every diverse K is
// then also measured on those two, and Comparable gives those rows.
func TestEveryKIsAlsoMeasuredOnTheCommonProblems(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Panels = 4
	rep := sliceRun(t, cfg)
	for _, k := range []int{3, 5, 7, 9} {
		row, ok := rep.Comparable("diverse", k, 60)
		require.True(t, ok, "K=%d", k)
		assert.Equal(t, CommonProblems, row.Set)
		assert.Equal(t, 2, row.Problems, "K=%d", k)
		assert.Equal(t, 8, row.Panels, "K=%d", k)
	}
	all3, _ := rep.Find("diverse", 3, 60)
	assert.Equal(t, 4, all3.Problems, "the BASELINE.md-style row keeps every problem")
	// Random panels exist at every K on every problem: no second set.
	_, ok := rep.FindOn(CommonProblems, "random", 3, 60)
	assert.False(t, ok)
	row, _ := rep.Comparable("random", 9, 60)
	assert.Equal(t, AllProblems, row.Set)
}

func TestIntervalsAreReproducibleAndBracketTheFigure(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Panels = 4
	a, b := sliceRun(t, cfg), sliceRun(t, cfg)
	ra, _ := a.Find("random", 3, 60)
	rb, _ := b.Find("random", 3, 60)
	assert.Equal(t, ra.CI, rb.CI, "a fixed seed gives the same intervals")
	assert.Less(t, ra.CI.Precision.Lo, ra.CI.Precision.Hi, "four problems with different precisions")
	assert.LessOrEqual(t, ra.CI.Precision.Lo, ra.Figures.KeptPrecision)
	assert.GreaterOrEqual(t, ra.CI.Precision.Hi, ra.Figures.KeptPrecision)

	cfg.Resamples = 0
	none := sliceRun(t, cfg)
	rn, _ := none.Find("random", 3, 60)
	assert.Equal(t, Intervals{}, rn.CI, "no resamples, no intervals")
	assert.Equal(t, ra.Figures, rn.Figures)
}

func TestPercentileIsTheCentral95(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(999-i) / 1000
	}
	assert.Equal(t, Interval{Lo: 0.025, Hi: 0.974}, percentile(xs))
	// Resamples where the share is over nothing do not count.
	assert.Equal(t, Interval{Lo: 0.5, Hi: 0.5}, percentile([]float64{0.5, ratioF(0, 0), 0.5}))
}

// Identical problems resample to the same figure: the interval has no width.
func TestIntervalOfIdenticalProblemsIsAPoint(t *testing.T) {
	tallies := make([]ProblemTally, 10)
	for i := range tallies {
		tallies[i] = ProblemTally{Panels: 4, WithKept: 3, Kept: 10, KeptCorrect: 9, Faults: Faults{Wrong: 4, VettedWrong: 3, Correct: 2}}
	}
	iv := newResampler(1, 200).intervals(tallies)
	assert.Equal(t, Interval{Lo: 0.9, Hi: 0.9}, iv.Precision)
	assert.Equal(t, Interval{Lo: 0.75, Hi: 0.75}, iv.Yield)
	assert.Equal(t, Interval{Lo: 0.75, Hi: 0.75}, iv.Faults[0])
	assert.Equal(t, Interval{Lo: 0, Hi: 0}, iv.Faults[1])
}

func TestWorstProblemsShowTheirPanelAndTests(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Panels = 4
	rep := sliceRun(t, cfg)
	row, ok := rep.Find("random", 3, 60)
	require.True(t, ok)
	s := row.Spread
	require.NotEmpty(t, s.Worst)
	w := s.Worst[0]
	assert.Less(t, w.Precision, 1.0)
	assert.Len(t, w.Panel, 3)
	wrong := 0
	for _, v := range w.Vetted {
		assert.NotEmpty(t, v.Code)
		if !v.Correct {
			wrong++
		}
	}
	assert.Positive(t, wrong, "the shown panel is one that kept a wrong test")
	assert.LessOrEqual(t, s.Below50, s.Below80)
}

func TestParseSizesAndThresholds(t *testing.T) {
	sizes, err := ParseSizes("9, 3,5")
	require.NoError(t, err)
	assert.Equal(t, []int{3, 5, 9}, sizes)
	rules, err := ParseThresholds("0.7,0.55")
	require.NoError(t, err)
	assert.Equal(t, []Rule{{55}, {70}}, rules)
	for _, tc := range []struct{ in, want string }{
		{"3,x", `panel size "x" in "3,x"`},
		{"1", `panel size "1"`},
		{"3,3", "panel size 3 twice"},
	} {
		_, err := ParseSizes(tc.in)
		assert.ErrorContains(t, err, tc.want, tc.in)
	}
	for _, tc := range []struct{ in, want string }{
		{"0.9", `threshold "0.9" in "0.9": threshold 90%: want 50% to 80%`},
		{"0.655", "at most two decimals"},
		{"60", "want 50% to 80%"},
		{"0.6,0.60", "threshold 0.60 twice"},
	} {
		_, err := ParseThresholds(tc.in)
		assert.ErrorContains(t, err, tc.want, tc.in)
	}
}
