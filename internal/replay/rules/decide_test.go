package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChecksAgainstTheAims(t *testing.T) {
	rep := runHand(t)
	gate := GateChecks([]*Report{rep}, IssueAim)
	byRule := map[Rule]GateCheck{}
	for _, g := range gate {
		byRule[g.Rule] = g
	}
	require.Len(t, byRule, 6, "every candidate rule, not the oracle")
	// seed: 1/4 caught, none failed: 55 pt short. repro: 3/4 caught (C keeps nothing), all failed: 5 + 90 pt.
	assert.InDelta(t, 0.8-0.25, byRule[Seed].Shortfall, 1e-12)
	assert.False(t, byRule[Seed].Meets)
	assert.InDelta(t, 0.05+0.9, byRule[Repro].Shortfall, 1e-12)

	picks := PickChecks([]*Report{rep})
	require.Len(t, picks, 1)
	pc := picks[0]
	// CodeT (5/6), consensus:seed and hybrid:seed tie at (1 + 0.5 + 1)/3; the first listed wins.
	assert.Equal(t, PickConsensus(Seed), pc.Best)
	assert.InDelta(t, 2.5/3, pc.Value.Value, 1e-12)
	assert.ElementsMatch(t, []string{PickHybrid(Seed), PickCodeT}, pc.Same, "they pick alike on every panel")
	assert.InDelta(t, 2.5/3-2.0/3, pc.Over[PickRandom].Value, 1e-12)
	assert.False(t, pc.Surely, "three instances cannot make sure")
}
