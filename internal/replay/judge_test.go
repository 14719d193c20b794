package replay

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// rows builds a problem from pass rows written as "1010" strings.
func rows(correct []bool, testsCorrect []bool, pass ...string) *Problem {
	p := &Problem{TaskID: "T"}
	for i, r := range pass {
		p.Coders = append(p.Coders, Coder{ID: string(rune('A' + i)), Source: "s", HiddenPass: correct[i]})
		row := make([]bool, len(r))
		for j, c := range r {
			row[j] = c == '1'
		}
		p.Pass = append(p.Pass, row)
	}
	for range pass[0] {
		p.Tests = append(p.Tests, Test{ID: "t", Source: "t"})
	}
	for j, c := range testsCorrect {
		p.Tests[j].Correct = c
	}
	return p
}

func TestJudgeOnAHandWorkedPanel(t *testing.T) {
	// Five coders, four tests. A and B pass tests 0-1 (group of 2, score 2×2 = 4); C passes
	// all four alone (score 4): tied, so CodeT merges {A, B, C}. D passes test 0 (score 1);
	// E passes nothing. K=5, t=0.6: a test is kept iff 3 or 4 coders pass it.
	p := rows(
		[]bool{false, false, true, true, true},
		[]bool{true, true, true, false},
		"1100", "1100", "1111", "1000", "0000",
	)
	o := judge(p, []int{0, 1, 2, 3, 4}, DixitRule)
	assert.Equal(t, []int{4, 3, 1, 1}, o.passes)
	assert.Equal(t, []bool{true, true, false, false}, o.kept)
	assert.True(t, o.anyKept)
	assert.InDelta(t, 3.0/5, o.random, 1e-12)
	assert.InDelta(t, 1.0/3, o.codeT, 1e-12, "merged top groups {A,B,C}: one correct of three")
	assert.True(t, o.dixitMade)
	assert.InDelta(t, 1.0/3, o.dixit, 1e-12, "consensus {A,B,C}")
	assert.InDelta(t, 1.0/3, o.hybrid, 1e-12, "the same three tie within the consensus")

	// With the threshold at 0.8 only test 0 (4 of 5) is kept: consensus {A,B,C,D}, and
	// D's score 1 keeps it out of the hybrid's pick.
	o = judge(p, []int{0, 1, 2, 3, 4}, Rule{ThresholdPct: 80})
	assert.Equal(t, []bool{true, false, false, false}, o.kept)
	assert.InDelta(t, 2.0/4, o.dixit, 1e-12)
	assert.InDelta(t, 1.0/3, o.hybrid, 1e-12)

	// Nobody passes anything: nothing is kept, CodeT picks uniformly and the hybrid is CodeT.
	empty := rows([]bool{true, false}, []bool{true}, "0", "0")
	o = judge(empty, []int{0, 1}, DixitRule)
	assert.False(t, o.anyKept)
	assert.InDelta(t, 0.5, o.codeT, 1e-12)
	assert.InDelta(t, 0.5, o.hybrid, 1e-12)
	assert.False(t, o.dixitMade)
}

func TestRuleKeepsExactlyBaselinesCounts(t *testing.T) {
	kept := func(r Rule, k int) []int {
		var ps []int
		for p := 0; p <= k; p++ {
			if r.Keep(p, k) {
				ps = append(ps, p)
			}
		}
		return ps
	}
	assert.Equal(t, []int{2}, kept(DixitRule, 3))
	assert.Equal(t, []int{3, 4}, kept(DixitRule, 5))
	assert.Equal(t, []int{5, 6}, kept(DixitRule, 7))
	assert.Empty(t, kept(Rule{ThresholdPct: 70}, 3))
	assert.False(t, Rule{ThresholdPct: 70}.KeepsAny(3))
	assert.Equal(t, []int{4}, kept(Rule{ThresholdPct: 80}, 5))
	assert.Error(t, Rule{ThresholdPct: 45}.Validate())
	assert.NoError(t, Rule{ThresholdPct: 80}.Validate())
}
