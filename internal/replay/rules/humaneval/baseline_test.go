package humaneval

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/rules"
)

const dataSet = "../../../../data/humaneval-replay/problems.jsonl.gz" // as the repository ships it

// TestTheSeedRuleLandsOnThePublishedFigures measures the whole data set at diverse K=5 and
// checks what BASELINE.md and docs/replay.md published, computed there by other code: the
// same panels must give the same picks and the same faults caught.
func TestTheSeedRuleLandsOnThePublishedFigures(t *testing.T) {
	start := time.Now()
	ctx := context.Background()
	problems, err := replay.LoadFile(ctx, dataSet)
	require.NoError(t, err)
	derived, err := ReadFile(ctx, "../../../../"+DerivedFile)
	require.NoError(t, err)
	c, err := Corpus(problems, derived, replay.Diverse)
	require.NoError(t, err)
	cfg := rules.DefaultConfig()
	cfg.Sizes, cfg.Resamples = []int{5}, 0
	rep, err := rules.Run(ctx, c, cfg, nil)
	require.NoError(t, err)
	row, ok := rep.Row(5, "all")
	require.True(t, ok)
	assert.Equal(t, 3280, row.Panels)

	pct := func(x float64) float64 { return float64(int(1000*x+0.5)) / 10 }
	codeT, _ := row.Pick(rules.PickCodeT)
	random, _ := row.Pick(rules.PickRandom)
	dixit, _ := row.Pick(rules.PickConsensus(rules.Seed))
	assert.Equal(t, 77.6, pct(codeT.Correct.Value), "BASELINE.md: CodeT pick, all panels")
	assert.Equal(t, 60.2, pct(random.Correct.Value), "random pick")
	assert.Equal(t, 72.3, pct(dixit.Made.Value), "Dixit picks made")
	assert.Equal(t, 72.9, pct(dixit.WhenMade.Value), "Dixit pick")

	for rule, want := range map[rules.Rule][2]float64{rules.Seed: {76.3, 3.9}, rules.Oracle: {97.6, 4.4}, rules.All: {99.5, 88.8}} {
		f, _ := row.Rule(rule)
		assert.Equal(t, want, [2]float64{pct(f.Caught.Value), pct(f.ResolvedFailed.Value)},
			"docs/replay.md's faults caught, %s (vetted / oracle / all proposed)", rule)
	}
	seed, _ := row.Rule(rules.Seed)
	assert.Equal(t, 94.1, pct(seed.GoldPrecision.Value), "kept precision")
	t.Logf("the whole data set at K=5 in %s", time.Since(start).Round(time.Millisecond))
}
