package rules

// Every pick is scored by its expected correctness: a uniform choice among a set of coders
// resolves the issue with the share of resolved coders in that set. A pick with nothing to
// go on falls back (to a uniform panel coder, or for the hybrid to CodeT's pick) so that
// every pick has a value on every panel; how often it did not fall back is counted apart.

func (v *panelView) addPick(l layout, name string, value float64, made bool, add func(int, float64)) {
	qi := l.pickIndex(name)
	add(l.pick(qi, qSum), value)
	if made {
		add(l.pick(qi, qMade), 1)
		add(l.pick(qi, qMadeSum), value)
	}
}

// addConsensusPicks scores rule r's three picks: uniform among the coders passing every kept
// test (the Dixit pick for the seed rule), the best of them by dual agreement, and the one
// of them passing the most LLM tests.
func (v *panelView) addConsensusPicks(l layout, r Rule, kept set, add func(int, float64)) {
	var consensus, scores []int
	if kept.count() > 0 {
		for i, c := range v.panel {
			if !v.pr.fail[c].meets(kept) { // panel coders have no env cell on a usable test
				consensus = append(consensus, c)
				scores = append(scores, v.scores[i])
			}
		}
	}
	if len(consensus) == 0 {
		codeT, _ := v.bestAgreed(v.panel, v.scores)
		v.addPick(l, PickConsensus(r), v.share(v.panel), false, add)
		v.addPick(l, PickHybrid(r), codeT, false, add)
		most, _ := v.maxPass(v.panel)
		v.addPick(l, PickMost(r), most, false, add)
		return
	}
	hybrid, _ := v.bestAgreed(consensus, scores)
	v.addPick(l, PickConsensus(r), v.share(consensus), true, add)
	v.addPick(l, PickHybrid(r), hybrid, true, add)
	most, _ := v.maxPass(consensus)
	v.addPick(l, PickMost(r), most, true, add)
}

// addOtherPicks scores the picks that use no keep rule.
func (v *panelView) addOtherPicks(l layout, add func(int, float64)) {
	codeT, made := v.bestAgreed(v.panel, v.scores)
	v.addPick(l, PickCodeT, codeT, made, add)
	majority, made := v.majority()
	v.addPick(l, PickMajority, majority, made, add)
	maxPass, made := v.maxPass(v.panel)
	v.addPick(l, PickMaxPass, maxPass, made, add)
	v.addPick(l, PickRandom, v.share(v.panel), true, add)
	oracle := 0.0
	if v.correct > 0 {
		oracle = 1
	}
	v.addPick(l, PickOracle, oracle, true, add)
}

// bestAgreed is CodeT's pick among coders: uniform among those with the top score (tied
// groups merged, as CodeT's evaluation.py does), or among all when none passes a test.
func (v *panelView) bestAgreed(coders, scores []int) (float64, bool) {
	top := 0
	for _, s := range scores {
		top = max(top, s)
	}
	if top == 0 {
		return v.share(coders), false
	}
	var best []int
	for i, s := range scores {
		if s == top {
			best = append(best, coders[i])
		}
	}
	return v.share(best), true
}

// majority is Agentless' selection: the most frequent identical normalised patch, ties
// uniformly. With every patch different it is a uniform pick, and says it had nothing to
// go on.
func (v *panelView) majority() (float64, bool) {
	count := map[string]int{}
	top := 0
	for _, c := range v.panel {
		g := v.pr.in.Coders[c].Group
		count[g]++
		top = max(top, count[g])
	}
	var best []int
	for _, c := range v.panel {
		if count[v.pr.in.Coders[c].Group] == top {
			best = append(best, c)
		}
	}
	return v.share(best), top > 1
}

// maxPass is "passes every LLM test" made total: the one of coders passing the most usable
// LLM tests, uniformly among ties.
func (v *panelView) maxPass(coders []int) (float64, bool) {
	top := -1
	passed := make([]int, len(coders))
	for i, c := range coders {
		passed[i] = v.pr.pass[c].countAnd(v.usable)
		top = max(top, passed[i])
	}
	var best []int
	for i, c := range coders {
		if passed[i] == top {
			best = append(best, c)
		}
	}
	return v.share(best), top > 0
}

func (v *panelView) share(coders []int) float64 {
	n := 0
	for _, c := range coders {
		if v.pr.in.Coders[c].Resolved {
			n++
		}
	}
	return float64(n) / float64(len(coders))
}
