package replay

// Faults count, over one problem's panels, the implementations outside each panel (the
// problem's other recorded coders) and how many of them each test suite rejects, that is
// fails on at least one of its tests. The wrong ones are the best mutants there are: real
// model code that fails the hidden tests.
type Faults struct {
	Wrong   int `json:"wrong"`   // (panel, out-of-panel wrong implementation) pairs
	Correct int `json:"correct"` // (panel, out-of-panel correct implementation) pairs

	VettedWrong   int `json:"vetted_wrong"` // rejected by the panel's kept tests
	VettedCorrect int `json:"vetted_correct"`
	OracleWrong   int `json:"oracle_wrong"` // by every test labelled correct
	OracleCorrect int `json:"oracle_correct"`
	AllWrong      int `json:"all_wrong"` // by every proposed test
	AllCorrect    int `json:"all_correct"`
}

func (f *Faults) add(g Faults) {
	f.Wrong += g.Wrong
	f.Correct += g.Correct
	f.VettedWrong += g.VettedWrong
	f.VettedCorrect += g.VettedCorrect
	f.OracleWrong += g.OracleWrong
	f.OracleCorrect += g.OracleCorrect
	f.AllWrong += g.AllWrong
	f.AllCorrect += g.AllCorrect
}

func (f Faults) times(k int) Faults {
	return Faults{f.Wrong * k, f.Correct * k, f.VettedWrong * k, f.VettedCorrect * k,
		f.OracleWrong * k, f.OracleCorrect * k, f.AllWrong * k, f.AllCorrect * k}
}

// FaultRates are Faults as shares: how much of the wrong code outside the panel a suite
// catches, and how much correct code it turns away.
type FaultRates struct {
	VettedWrong   float64 `json:"vetted_wrong"`
	VettedCorrect float64 `json:"vetted_correct"`
	OracleWrong   float64 `json:"oracle_wrong"`
	OracleCorrect float64 `json:"oracle_correct"`
	AllWrong      float64 `json:"all_wrong"`
	AllCorrect    float64 `json:"all_correct"`
}

// Rates pools the pairs: Σ rejected / Σ pairs.
func (f Faults) Rates() FaultRates {
	return FaultRates{
		VettedWrong:   ratio(float64(f.VettedWrong), f.Wrong),
		VettedCorrect: ratio(float64(f.VettedCorrect), f.Correct),
		OracleWrong:   ratio(float64(f.OracleWrong), f.Wrong),
		OracleCorrect: ratio(float64(f.OracleCorrect), f.Correct),
		AllWrong:      ratio(float64(f.AllWrong), f.Wrong),
		AllCorrect:    ratio(float64(f.AllCorrect), f.Correct),
	}
}

// bits is a problem's pass matrix as bit sets, so that "fails one of these tests" is a few
// word operations per coder: the fault counts look at every coder for every panel.
type bits struct {
	fails          [][]uint64 // per coder: the tests it does not pass
	oracle, all    []bool     // per coder: rejected by the correct tests, by all tests
	wrong, correct int        // coders failing / passing the hidden tests
}

func newBits(p *Problem) *bits {
	words := (len(p.Tests) + 63) / 64
	correctSet := make([]uint64, words)
	for t, test := range p.Tests {
		if test.Correct {
			correctSet[t/64] |= 1 << (t % 64)
		}
	}
	b := &bits{fails: make([][]uint64, len(p.Coders)), oracle: make([]bool, len(p.Coders)), all: make([]bool, len(p.Coders))}
	for c, row := range p.Pass {
		f := make([]uint64, words)
		for t, ok := range row {
			if !ok {
				f[t/64] |= 1 << (t % 64)
			}
		}
		b.fails[c] = f
		b.all[c] = meets(f, nil)
		b.oracle[c] = meets(f, correctSet)
		if p.Coders[c].HiddenPass {
			b.correct++
		} else {
			b.wrong++
		}
	}
	return b
}

// meets says whether the set a shares a bit with mask (nil: with anything).
func meets(a, mask []uint64) bool {
	for i, w := range a {
		if mask != nil {
			w &= mask[i]
		}
		if w != 0 {
			return true
		}
	}
	return false
}

// faults counts one panel's out-of-panel implementations and the suites rejecting them.
func (b *bits) faults(p *Problem, panel []int, kept []bool) Faults {
	keptSet := make([]uint64, (len(kept)+63)/64)
	for t, k := range kept {
		if k {
			keptSet[t/64] |= 1 << (t % 64)
		}
	}
	in := make(map[int]bool, len(panel))
	for _, c := range panel {
		in[c] = true
	}
	var f Faults
	for c := range p.Coders {
		if in[c] {
			continue
		}
		vetted := meets(b.fails[c], keptSet)
		if p.Coders[c].HiddenPass {
			f.Correct++
			f.VettedCorrect += one(vetted)
			f.OracleCorrect += one(b.oracle[c])
			f.AllCorrect += one(b.all[c])
		} else {
			f.Wrong++
			f.VettedWrong += one(vetted)
			f.OracleWrong += one(b.oracle[c])
			f.AllWrong += one(b.all[c])
		}
	}
	return f
}

func one(b bool) int {
	if b {
		return 1
	}
	return 0
}
