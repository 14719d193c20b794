package replay

import (
	"maps"
	"slices"
)

// Counts are the raw tallies behind one row of figures, pooled over (problem, panel) pairs.
type Counts struct {
	Problems        int     `json:"problems"`           // problems with at least one panel
	Panels          int     `json:"panels"`             //
	AnyKeptShareSum float64 `json:"any_kept_share_sum"` // Σ over problems of the share of its panels keeping a test

	KeptTests          int `json:"kept_tests"`
	KeptCorrect        int `json:"kept_correct"`
	WrongTests         int `json:"wrong_tests"` // wrong (problem test, panel) pairs
	WrongKept          int `json:"wrong_kept"`
	CorrectTests       int `json:"correct_tests"`
	CorrectKept        int `json:"correct_kept"`
	CorrectLostAllPass int `json:"correct_lost_all_pass"`
	AllPassTests       int `json:"all_pass_tests"` // every panel coder passes
	AllPassCorrect     int `json:"all_pass_correct"`

	PanelsWithCorrect int     `json:"panels_with_correct"`
	RandomSum         float64 `json:"random_sum"`
	CodeTSum          float64 `json:"codet_sum"`
	HybridSum         float64 `json:"hybrid_sum"`
	DixitPicks        int     `json:"dixit_picks"`
	DixitSum          float64 `json:"dixit_sum"`
	CodeTSameSum      float64 `json:"codet_same_sum"`
	RandomSameSum     float64 `json:"random_same_sum"`
	HybridSameSum     float64 `json:"hybrid_same_sum"`
	EmptyConsensus    int     `json:"empty_consensus"`

	ByTester map[string]*TesterCounts `json:"by_tester"`
	Faults   Faults                   `json:"faults"`

	// PerProblem is each problem's share, in file order: what the bootstrap resamples and
	// the per-problem distribution reads.
	PerProblem []ProblemTally `json:"-"`

	// paired differences, per problem
	dixitVsCodeT, hybridVsCodeT, hybridVsDixit, hybridVsCodeTAll diffTally
}

// TesterCounts are the kept tests of one tester source.
type TesterCounts struct {
	Kept        int `json:"kept"`
	KeptCorrect int `json:"kept_correct"`
}

// addProblem pools one problem's panel outcomes; i is its index in the file.
func (c *Counts) addProblem(i int, p *Problem, outs []outcome) {
	if len(outs) == 0 {
		return
	}
	if c.ByTester == nil {
		c.ByTester = map[string]*TesterCounts{}
	}
	c.Problems++
	withKept, picks := 0, 0
	var dixitCodeT, hybridCodeT, hybridDixit, hybridCodeTAll float64
	for _, o := range outs {
		c.add(p, o)
		if o.anyKept {
			withKept++
		}
		hybridCodeTAll += o.hybrid - o.codeT
		if o.dixitMade {
			picks++
			dixitCodeT += o.dixit - o.codeT
			hybridCodeT += o.hybrid - o.codeT
			hybridDixit += o.hybrid - o.dixit
		}
	}
	c.dixitVsCodeT.add(dixitCodeT, picks)
	c.hybridVsCodeT.add(hybridCodeT, picks)
	c.hybridVsDixit.add(hybridDixit, picks)
	c.hybridVsCodeTAll.add(hybridCodeTAll, len(outs))
	c.AnyKeptShareSum += float64(withKept) / float64(len(outs))
	pt := tallyProblem(i, p, outs)
	c.Faults.add(pt.Faults)
	c.PerProblem = append(c.PerProblem, pt)
}

func (c *Counts) add(p *Problem, o outcome) {
	c.Panels++
	for t, test := range p.Tests {
		allPass := o.passes[t] == o.size
		if allPass {
			c.AllPassTests++
		}
		if o.kept[t] {
			c.KeptTests++
			tc := c.ByTester[test.Source]
			if tc == nil {
				tc = &TesterCounts{}
				c.ByTester[test.Source] = tc
			}
			tc.Kept++
			if test.Correct {
				c.KeptCorrect++
				tc.KeptCorrect++
			}
		}
		switch {
		case test.Correct:
			c.CorrectTests++
			if allPass {
				c.AllPassCorrect++
			}
			if o.kept[t] {
				c.CorrectKept++
			} else if allPass {
				c.CorrectLostAllPass++
			}
		default:
			c.WrongTests++
			if o.kept[t] {
				c.WrongKept++
			}
		}
	}
	if o.hasCorrect {
		c.PanelsWithCorrect++
	}
	c.RandomSum += o.random
	c.CodeTSum += o.codeT
	c.HybridSum += o.hybrid
	if o.emptyConsensus {
		c.EmptyConsensus++
	}
	if o.dixitMade {
		c.DixitPicks++
		c.DixitSum += o.dixit
		c.CodeTSameSum += o.codeT
		c.RandomSameSum += o.random
		c.HybridSameSum += o.hybrid
	}
}

// Figures are one row of BASELINE.md's tables (shares in [0, 1]) plus the hybrid pick.
type Figures struct {
	AnyKept          float64 `json:"any_kept"` // ≥1 kept test, per-problem share averaged over problems
	KeptTests        int     `json:"kept_tests"`
	KeptPrecision    float64 `json:"kept_precision"`
	WrongRejected    float64 `json:"wrong_rejected"`
	CorrectLost      float64 `json:"correct_lost"`
	LostAllPass      float64 `json:"lost_all_pass"` // of the correct lost, the share every panel coder passed
	AllPassPrecision float64 `json:"all_pass_precision"`

	HasCorrect     float64 `json:"has_correct"`
	RandomPick     float64 `json:"random_pick"`
	CodeTPick      float64 `json:"codet_pick"`
	HybridPick     float64 `json:"hybrid_pick"` // all panels
	DixitMade      float64 `json:"dixit_made"`
	DixitPick      float64 `json:"dixit_pick"`
	CodeTSame      float64 `json:"codet_same"`
	RandomSame     float64 `json:"random_same"`
	HybridSame     float64 `json:"hybrid_same"`
	EmptyConsensus float64 `json:"empty_consensus"`

	// paired differences between pick rules (same panels unless "All")
	DixitMinusCodeT     Diff `json:"dixit_minus_codet"`
	HybridMinusCodeT    Diff `json:"hybrid_minus_codet"`
	HybridMinusDixit    Diff `json:"hybrid_minus_dixit"`
	HybridMinusCodeTAll Diff `json:"hybrid_minus_codet_all"`

	TesterPrecision map[string]float64 `json:"tester_precision"`
	TesterKept      map[string]int     `json:"tester_kept"`

	Faults FaultRates `json:"faults"`
}

// Figures derives the shares; a share over nothing is 0.
func (c *Counts) Figures() Figures {
	f := Figures{
		AnyKept:             ratio(c.AnyKeptShareSum, c.Problems),
		KeptTests:           c.KeptTests,
		KeptPrecision:       ratio(float64(c.KeptCorrect), c.KeptTests),
		WrongRejected:       ratio(float64(c.WrongTests-c.WrongKept), c.WrongTests),
		CorrectLost:         ratio(float64(c.CorrectTests-c.CorrectKept), c.CorrectTests),
		LostAllPass:         ratio(float64(c.CorrectLostAllPass), c.CorrectTests-c.CorrectKept),
		AllPassPrecision:    ratio(float64(c.AllPassCorrect), c.AllPassTests),
		HasCorrect:          ratio(float64(c.PanelsWithCorrect), c.Panels),
		RandomPick:          ratio(c.RandomSum, c.Panels),
		CodeTPick:           ratio(c.CodeTSum, c.Panels),
		HybridPick:          ratio(c.HybridSum, c.Panels),
		DixitMade:           ratio(float64(c.DixitPicks), c.Panels),
		DixitPick:           ratio(c.DixitSum, c.DixitPicks),
		CodeTSame:           ratio(c.CodeTSameSum, c.DixitPicks),
		RandomSame:          ratio(c.RandomSameSum, c.DixitPicks),
		HybridSame:          ratio(c.HybridSameSum, c.DixitPicks),
		EmptyConsensus:      ratio(float64(c.EmptyConsensus), c.Panels),
		DixitMinusCodeT:     c.dixitVsCodeT.result(),
		HybridMinusCodeT:    c.hybridVsCodeT.result(),
		HybridMinusDixit:    c.hybridVsDixit.result(),
		HybridMinusCodeTAll: c.hybridVsCodeTAll.result(),
		TesterPrecision:     map[string]float64{},
		TesterKept:          map[string]int{},
		Faults:              c.Faults.Rates(),
	}
	for _, s := range slices.Sorted(maps.Keys(c.ByTester)) {
		tc := c.ByTester[s]
		f.TesterPrecision[s] = ratio(float64(tc.KeptCorrect), tc.Kept)
		f.TesterKept[s] = tc.Kept
	}
	return f
}

func ratio(num float64, den int) float64 {
	if den == 0 {
		return 0
	}
	return num / float64(den)
}
