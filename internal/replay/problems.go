package replay

import (
	"cmp"
	"slices"
)

// ProblemTally is one problem's share of a row.
type ProblemTally struct {
	Index       int    `json:"-"` // in the file
	TaskID      string `json:"task_id"`
	Panels      int    `json:"panels"`
	WithKept    int    `json:"with_kept"` // panels keeping at least one test
	Kept        int    `json:"kept"`
	KeptCorrect int    `json:"kept_correct"`
	Faults      Faults `json:"faults"`

	// The panel that kept the most wrong tests (the first such), to show a reader how the
	// rule goes wrong on this problem.
	WorstPanel []int `json:"-"`
	WorstKept  []int `json:"-"`
}

// Precision is the problem's kept precision, or false when no panel kept a test.
func (t ProblemTally) Precision() (float64, bool) {
	return ratio(float64(t.KeptCorrect), t.Kept), t.Kept > 0
}

// Yield is the share of the problem's panels keeping at least one test.
func (t ProblemTally) Yield() float64 { return ratio(float64(t.WithKept), t.Panels) }

func tallyProblem(i int, p *Problem, outs []outcome) ProblemTally {
	pt := ProblemTally{Index: i, TaskID: p.TaskID, Panels: len(outs)}
	worstWrong := -1
	for _, o := range outs {
		pt.Faults.add(o.faults)
		var kept []int
		wrong := 0
		for t, k := range o.kept {
			if !k {
				continue
			}
			kept = append(kept, t)
			if p.Tests[t].Correct {
				pt.KeptCorrect++
			} else {
				wrong++
			}
		}
		pt.Kept += len(kept)
		if len(kept) > 0 {
			pt.WithKept++
		}
		if wrong > worstWrong {
			worstWrong, pt.WorstPanel, pt.WorstKept = wrong, o.panel, kept
		}
	}
	return pt
}

// Spread is how a row's precision is spread over problems: pooled precision weighs each
// problem by its kept tests, so a few problems where the panel's majority shared a wrong
// belief hide in it.
type Spread struct {
	Problems      int            `json:"problems"`       // with at least one kept test
	MeanPrecision float64        `json:"mean_precision"` // per-problem precision, averaged
	Below80       int            `json:"below_80"`
	Below50       int            `json:"below_50"`
	Worst         []WorstProblem `json:"worst"`
}

// WorstProblem is one of the problems with the lowest precision, with the panel that kept
// the most wrong tests there and what it kept.
type WorstProblem struct {
	TaskID      string       `json:"task_id"`
	Precision   float64      `json:"precision"`
	Kept        int          `json:"kept"`
	KeptCorrect int          `json:"kept_correct"`
	Panel       []PanelCoder `json:"panel"`
	Vetted      []VettedTest `json:"vetted"`
}

// PanelCoder is a coder of a shown panel.
type PanelCoder struct {
	ID      string `json:"id"`
	Correct bool   `json:"correct"` // passes the hidden tests
}

// VettedTest is a test a shown panel kept.
type VettedTest struct {
	ID      string `json:"id"`
	Correct bool   `json:"correct"`
	Code    string `json:"code"`
}

// worstShown is how many of the lowest-precision problems a row lists.
const worstShown = 5

func spread(problems []Problem, tallies []ProblemTally) Spread {
	var s Spread
	var sum float64
	var ranked []ProblemTally
	for _, t := range tallies {
		p, ok := t.Precision()
		if !ok {
			continue
		}
		s.Problems++
		sum += p
		if p < 0.8 {
			s.Below80++
		}
		if p < 0.5 {
			s.Below50++
		}
		if p < 1 {
			ranked = append(ranked, t)
		}
	}
	s.MeanPrecision = ratio(sum, s.Problems)
	slices.SortStableFunc(ranked, func(a, b ProblemTally) int {
		pa, _ := a.Precision()
		pb, _ := b.Precision()
		return cmp.Compare(pa, pb)
	})
	for _, t := range ranked[:min(worstShown, len(ranked))] {
		s.Worst = append(s.Worst, worstOf(&problems[t.Index], t))
	}
	return s
}

func worstOf(p *Problem, t ProblemTally) WorstProblem {
	prec, _ := t.Precision()
	w := WorstProblem{TaskID: t.TaskID, Precision: prec, Kept: t.Kept, KeptCorrect: t.KeptCorrect}
	for _, c := range t.WorstPanel {
		w.Panel = append(w.Panel, PanelCoder{ID: p.Coders[c].ID, Correct: p.Coders[c].HiddenPass})
	}
	for _, i := range t.WorstKept {
		w.Vetted = append(w.Vetted, VettedTest{ID: p.Tests[i].ID, Correct: p.Tests[i].Correct, Code: p.Tests[i].Code})
	}
	return w
}
