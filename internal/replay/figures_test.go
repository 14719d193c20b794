package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The figures below are recomputed from the raw JSON of the slice by a plain
// re-implementation of BASELINE.md's definitions that shares no code with the package
// (only the drawn panels, which TestDrawMatches* check against Python).

type rawProblem struct {
	TaskID string `json:"task_id"`
	Coders []struct {
		HiddenPass bool `json:"hidden_pass"`
	} `json:"coders"`
	Tests []struct {
		Source  string `json:"source"`
		Correct bool   `json:"correct"`
	} `json:"tests"`
	Matrix [][]int `json:"pass_matrix"`
}

func readRaw(t *testing.T, path string) []rawProblem {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []rawProblem
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p rawProblem
		require.NoError(t, json.Unmarshal(sc.Bytes(), &p))
		out = append(out, p)
	}
	require.NoError(t, sc.Err())
	return out
}

// expected is what the test's own arithmetic gives for one kind, size and threshold.
type expected struct {
	anyKept, keptPrecision, wrongRejected, correctLost, lostAllPass, allPassPrecision float64
	keptTests                                                                         int
	hasCorrect, random, codeT, hybridAll                                              float64
	made, dixit, codeTSame, randomSame, hybridSame, empty                             float64
	testerPrecision                                                                   map[string]float64
}

func frac(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

// correctShare is the chance that a uniform pick among coders is right.
func correctShare(p rawProblem, coders []int) float64 {
	right := 0.0
	for _, c := range coders {
		if p.Coders[c].HiddenPass {
			right++
		}
	}
	return right / float64(len(coders))
}

// codeTBest returns the panel coders CodeT would choose among, restricted to allowed.
func codeTBest(p rawProblem, panel []int, allowed func(int) bool) []int {
	key := func(c int) string { return fmt.Sprint(p.Matrix[c]) }
	groups := map[string]int{}
	for _, c := range panel {
		groups[key(c)]++
	}
	best, bestScore := []int{}, 0
	for _, c := range panel {
		if !allowed(c) {
			continue
		}
		passed := 0
		for _, v := range p.Matrix[c] {
			passed += v
		}
		score := passed * groups[key(c)]
		switch {
		case score == 0:
		case score > bestScore:
			best, bestScore = []int{c}, score
		case score == bestScore:
			best = append(best, c)
		}
	}
	if len(best) == 0 {
		for _, c := range panel {
			if allowed(c) {
				best = append(best, c)
			}
		}
	}
	return best
}

func recompute(raw []rawProblem, panels Panels, k int, threshold float64) expected {
	var e expected
	var problems, nPanels, kept, keptRight, wrong, wrongKept, right, rightKept, lostAll, allPass, allPassRight float64
	var withCorrect, made, empty float64
	var sumRandom, sumCodeT, sumHybrid, sumDixit, sumCodeTSame, sumRandomSame, sumHybridSame float64
	byTester, byTesterRight := map[string]float64{}, map[string]float64{}
	var anyKeptSum float64
	for i, p := range raw {
		if len(panels[i]) == 0 {
			continue
		}
		problems++
		panelsWithKept := 0.0
		for _, panel := range panels[i] {
			nPanels++
			keptTest := make([]bool, len(p.Tests))
			anyKept := false
			for j, test := range p.Tests {
				passing := 0
				for _, c := range panel {
					passing += p.Matrix[c][j]
				}
				keptTest[j] = float64(passing)/float64(k) >= threshold-1e-9 && passing < k
				if keptTest[j] {
					anyKept = true
					kept++
					byTester[test.Source]++
					if test.Correct {
						keptRight++
						byTesterRight[test.Source]++
					}
				}
				if passing == k {
					allPass++
					if test.Correct {
						allPassRight++
					}
				}
				if test.Correct {
					right++
					if keptTest[j] {
						rightKept++
					} else if passing == k {
						lostAll++
					}
				} else {
					wrong++
					if keptTest[j] {
						wrongKept++
					}
				}
			}
			if anyKept {
				panelsWithKept++
			}
			if correctShare(p, panel) > 0 {
				withCorrect++
			}
			all := func(int) bool { return true }
			rnd := correctShare(p, panel)
			codeT := correctShare(p, codeTBest(p, panel, all))
			sumRandom += rnd
			sumCodeT += codeT
			consensus := map[int]bool{}
			for _, c := range panel {
				ok := true
				for j := range p.Tests {
					if keptTest[j] && p.Matrix[c][j] == 0 {
						ok = false
					}
				}
				consensus[c] = ok
			}
			var members []int
			for _, c := range panel {
				if consensus[c] {
					members = append(members, c)
				}
			}
			hybrid := codeT
			switch {
			case !anyKept:
			case len(members) == 0:
				empty++
			default:
				made++
				hybrid = correctShare(p, codeTBest(p, panel, func(c int) bool { return consensus[c] }))
				sumDixit += correctShare(p, members)
				sumCodeTSame += codeT
				sumRandomSame += rnd
				sumHybridSame += hybrid
			}
			sumHybrid += hybrid
		}
		anyKeptSum += panelsWithKept / float64(len(panels[i]))
	}
	e.anyKept = frac(anyKeptSum, problems)
	e.keptTests = int(kept)
	e.keptPrecision = frac(keptRight, kept)
	e.wrongRejected = frac(wrong-wrongKept, wrong)
	e.correctLost = frac(right-rightKept, right)
	e.lostAllPass = frac(lostAll, right-rightKept)
	e.allPassPrecision = frac(allPassRight, allPass)
	e.hasCorrect = frac(withCorrect, nPanels)
	e.random = frac(sumRandom, nPanels)
	e.codeT = frac(sumCodeT, nPanels)
	e.hybridAll = frac(sumHybrid, nPanels)
	e.made = frac(made, nPanels)
	e.empty = frac(empty, nPanels)
	e.dixit = frac(sumDixit, made)
	e.codeTSame = frac(sumCodeTSame, made)
	e.randomSame = frac(sumRandomSame, made)
	e.hybridSame = frac(sumHybridSame, made)
	e.testerPrecision = map[string]float64{}
	for s, n := range byTester {
		e.testerPrecision[s] = byTesterRight[s] / n
	}
	return e
}

func TestFiguresMatchAnIndependentRecount(t *testing.T) {
	ps := loadSlice(t)
	raw := readRaw(t, "testdata/slice.jsonl")
	kinds := []Kind{Diverse, Random, Same("codet/codegen-16b"), Same("agentcoder/gpt-3.5-turbo-1106")}
	for _, kind := range kinds {
		for _, k := range []int{3, 5, 7} {
			panels := Draw(ps, kind, k, DefaultSeed, 5)
			for _, pct := range []int{50, 60, 70, 80} {
				t.Run(fmt.Sprintf("%s/K=%d/t=%d", kind, k, pct), func(t *testing.T) {
					c := Evaluate(ps, panels, Rule{ThresholdPct: pct})
					got, want := c.Figures(), recompute(raw, panels, k, float64(pct)/100)
					const eps = 1e-12
					assert.Equal(t, want.keptTests, got.KeptTests, "kept tests")
					for name, pair := range map[string][2]float64{
						"≥1 kept":            {want.anyKept, got.AnyKept},
						"kept precision":     {want.keptPrecision, got.KeptPrecision},
						"wrong rejected":     {want.wrongRejected, got.WrongRejected},
						"correct lost":       {want.correctLost, got.CorrectLost},
						"of which all-pass":  {want.lostAllPass, got.LostAllPass},
						"all-pass precision": {want.allPassPrecision, got.AllPassPrecision},
						"has correct":        {want.hasCorrect, got.HasCorrect},
						"random pick":        {want.random, got.RandomPick},
						"CodeT pick":         {want.codeT, got.CodeTPick},
						"hybrid, all panels": {want.hybridAll, got.HybridPick},
						"Dixit picks made":   {want.made, got.DixitMade},
						"Dixit pick":         {want.dixit, got.DixitPick},
						"CodeT, same panels": {want.codeTSame, got.CodeTSame},
						"random, same":       {want.randomSame, got.RandomSame},
						"hybrid, same":       {want.hybridSame, got.HybridSame},
						"empty consensus":    {want.empty, got.EmptyConsensus},
						"hybrid − CodeT":     {want.hybridSame - want.codeTSame, got.HybridMinusCodeT.Mean},
						"hybrid − Dixit":     {want.hybridSame - want.dixit, got.HybridMinusDixit.Mean},
						"Dixit − CodeT":      {want.dixit - want.codeTSame, got.DixitMinusCodeT.Mean},
					} {
						assert.InDelta(t, pair[0], pair[1], eps, name)
					}
					require.Len(t, got.TesterPrecision, len(want.testerPrecision))
					for s, v := range want.testerPrecision {
						assert.InDelta(t, v, got.TesterPrecision[s], eps, "precision of tester %s", s)
					}
				})
			}
		}
	}
}

// TestTheSliceExercisesEveryBranch guards the fixture: a recount that never meets an empty
// consensus or a panel where no coder passes anything would prove little.
func TestTheSliceExercisesEveryBranch(t *testing.T) {
	ps := loadSlice(t)
	var made, empty, noKept, hybridDiffers, nobodyPasses int
	for _, kind := range []Kind{Diverse, Random, Same("codet/codegen-16b")} {
		for _, k := range []int{3, 5, 7} {
			panels := Draw(ps, kind, k, DefaultSeed, 5)
			for i := range ps {
				for _, panel := range panels[i] {
					o := judge(&ps[i], panel, DixitRule)
					switch {
					case o.dixitMade:
						made++
					case o.emptyConsensus:
						empty++
					default:
						noKept++
					}
					if o.dixitMade && o.hybrid != o.dixit {
						hybridDiffers++
					}
					if slices.Max(agreement(&ps[i], panel)) == 0 {
						nobodyPasses++
					}
				}
			}
		}
	}
	t.Logf("picks %d, empty consensus %d, nothing kept %d, hybrid ≠ Dixit %d, no coder passes a test %d",
		made, empty, noKept, hybridDiffers, nobodyPasses)
	assert.Positive(t, made)
	assert.Positive(t, empty)
	assert.Positive(t, noKept)
	assert.Positive(t, hybridDiffers)
	assert.Positive(t, nobodyPasses)
}
