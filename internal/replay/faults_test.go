package replay

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recountFaults is a second, plain computation of the faults caught, from the raw JSON of
// the slice: for every panel, it decides the kept tests itself, then walks every coder
// outside the panel and every test, with no bit sets and no shared helper.
func recountFaults(raw []rawProblem, tests [][]bool, panels Panels, k int, threshold float64) []Faults {
	out := make([]Faults, len(raw))
	for i, p := range raw {
		for _, panel := range panels[i] {
			kept := make([]bool, len(p.Tests))
			for j := range p.Tests {
				passing := 0
				for _, c := range panel {
					passing += p.Matrix[c][j]
				}
				kept[j] = float64(passing) >= threshold*float64(k)-1e-9 && passing < k
			}
			for c := range p.Coders {
				inPanel := false
				for _, m := range panel {
					inPanel = inPanel || m == c
				}
				if inPanel {
					continue
				}
				var byKept, byCorrect, byAny bool
				for j := range p.Tests {
					if p.Matrix[c][j] == 1 {
						continue
					}
					byAny = true
					byKept = byKept || kept[j]
					byCorrect = byCorrect || tests[i][j]
				}
				f := &out[i]
				if p.Coders[c].HiddenPass {
					f.Correct++
					f.VettedCorrect += b2i(byKept)
					f.OracleCorrect += b2i(byCorrect)
					f.AllCorrect += b2i(byAny)
				} else {
					f.Wrong++
					f.VettedWrong += b2i(byKept)
					f.OracleWrong += b2i(byCorrect)
					f.AllWrong += b2i(byAny)
				}
			}
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestFaultsMatchAnIndependentRecount(t *testing.T) {
	ps := loadSlice(t)
	raw := readRaw(t, "testdata/slice.jsonl")
	correct := make([][]bool, len(raw))
	for i, p := range raw {
		for _, test := range p.Tests {
			correct[i] = append(correct[i], test.Correct)
		}
	}
	var sawCaught, sawMissed, sawCorrectRejected bool
	for _, kind := range []Kind{Diverse, Random, Same("codet/codegen-16b")} {
		for _, k := range []int{3, 5, 7} {
			panels := Draw(ps, kind, k, DefaultSeed, 5)
			for _, pct := range []int{50, 60, 80} {
				t.Run(fmt.Sprintf("%s/K=%d/t=%d", kind, k, pct), func(t *testing.T) {
					c := Evaluate(ps, panels, Rule{ThresholdPct: pct})
					want := recountFaults(raw, correct, panels, k, float64(pct)/100)
					var pooled Faults
					got := map[string]Faults{}
					for _, pt := range c.PerProblem {
						got[pt.TaskID] = pt.Faults
					}
					for i, f := range want {
						pooled.add(f)
						if len(panels[i]) > 0 {
							assert.Equal(t, f, got[raw[i].TaskID], raw[i].TaskID)
						}
					}
					assert.Equal(t, pooled, c.Faults)
					assert.InDelta(t, float64(pooled.VettedWrong)/float64(pooled.Wrong), c.Figures().Faults.VettedWrong, 1e-12)
					sawCaught = sawCaught || pooled.VettedWrong > 0
					sawMissed = sawMissed || pooled.VettedWrong < pooled.Wrong
					sawCorrectRejected = sawCorrectRejected || pooled.VettedCorrect > 0
				})
			}
		}
	}
	require.True(t, sawCaught && sawMissed && sawCorrectRejected,
		"the slice should have caught and missed wrong code, and rejected correct code")
}

// A hand-worked panel: three coders outside it, two tests kept.
func TestFaultsOnAHandWorkedPanel(t *testing.T) {
	// Tests 0 and 1 correct, 2 wrong. Panel A, B; outside: C wrong failing test 0,
	// D wrong passing everything correct but failing the wrong test, E correct failing 2.
	p := rows([]bool{true, true, false, false, true}, []bool{true, true, false},
		"111", "110", "011", "110", "110")
	kept := []bool{true, false, false}
	f := newBits(p).faults(p, []int{0, 1}, kept)
	assert.Equal(t, Faults{
		Wrong: 2, Correct: 1,
		VettedWrong: 1, VettedCorrect: 0, // C fails kept test 0; D passes it
		OracleWrong: 1, OracleCorrect: 0, // only C fails a correct test
		AllWrong: 2, AllCorrect: 1, // everyone outside fails some test
	}, f)
}
