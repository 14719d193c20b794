package replay

// outcome is what one panel makes of one problem: which tests it keeps and the expected
// correctness of each pick rule (a uniform choice among a set of coders is correct with
// the share of correct coders in that set).
type outcome struct {
	panel   []int  // coder indices
	size    int    // panel coders
	passes  []int  // per test: panel coders that pass it
	kept    []bool // per test
	anyKept bool

	hasCorrect bool
	random     float64
	codeT      float64
	// dixitMade: some test kept and some coder passes them all; dixit is then the
	// expected correctness of a consensus coder, hybrid that of the best-agreeing one.
	dixitMade      bool
	emptyConsensus bool
	dixit          float64
	hybrid         float64 // CodeT's pick when there is no consensus

	faults Faults // the implementations outside the panel, and who rejects them
}

// judge applies rule to one panel (coder indices into p.Coders).
func judge(p *Problem, panel []int, rule Rule) outcome {
	k := len(panel)
	o := outcome{size: k, passes: make([]int, len(p.Tests)), kept: make([]bool, len(p.Tests))}
	for _, c := range panel {
		for t, ok := range p.Pass[c] {
			if ok {
				o.passes[t]++
			}
		}
	}
	for t, n := range o.passes {
		o.kept[t] = rule.Keep(n, k)
		o.anyKept = o.anyKept || o.kept[t]
	}
	for _, c := range panel {
		o.hasCorrect = o.hasCorrect || p.Coders[c].HiddenPass
	}
	o.random = shareCorrect(p, panel)

	scores := agreement(p, panel)
	o.codeT = p.bestAgreed(panel, scores)
	o.hybrid = o.codeT
	if !o.anyKept {
		return o
	}
	var consensus, consensusScores []int
	for i, c := range panel {
		if passesAll(p.Pass[c], o.kept) {
			consensus = append(consensus, c)
			consensusScores = append(consensusScores, scores[i])
		}
	}
	if len(consensus) == 0 {
		o.emptyConsensus = true
		return o
	}
	o.dixitMade = true
	o.dixit = shareCorrect(p, consensus)
	o.hybrid = p.bestAgreed(consensus, consensusScores)
	return o
}

// agreement is CodeT's dual agreement score of each panel coder over all the problem's
// tests: coders that pass exactly the same tests form a group, and a coder's score is
// (tests its group passes) × (coders in its group). A coder passing nothing scores 0.
func agreement(p *Problem, panel []int) []int {
	scores := make([]int, len(panel))
	for i, a := range panel {
		passed := 0
		for _, ok := range p.Pass[a] {
			if ok {
				passed++
			}
		}
		group := 0
		for _, b := range panel {
			if sameRow(p.Pass[a], p.Pass[b]) {
				group++
			}
		}
		scores[i] = passed * group
	}
	return scores
}

// bestAgreed is the expected correctness of CodeT's pick among coders: a uniform choice
// among those with the top score (tied groups merged, as CodeT's evaluation.py does), or
// among all of them when none passes any test (score 0 is unranked).
func (p *Problem) bestAgreed(coders, scores []int) float64 {
	top := 0
	for _, s := range scores {
		top = max(top, s)
	}
	if top == 0 {
		return shareCorrect(p, coders)
	}
	var best []int
	for i, s := range scores {
		if s == top {
			best = append(best, coders[i])
		}
	}
	return shareCorrect(p, best)
}

func shareCorrect(p *Problem, coders []int) float64 {
	n := 0
	for _, c := range coders {
		if p.Coders[c].HiddenPass {
			n++
		}
	}
	return float64(n) / float64(len(coders))
}

func passesAll(row, kept []bool) bool {
	for t, k := range kept {
		if k && !row[t] {
			return false
		}
	}
	return true
}

func sameRow(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
