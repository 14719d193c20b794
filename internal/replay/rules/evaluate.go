package rules

// panelView is one panel of one instance: the tests it can classify and how many of its
// coders pass each.
type panelView struct {
	pr      *prepared
	panel   []int
	in      []bool // per pool coder: in the panel
	usable  set    // tests with no env cell on any panel coder
	passes  []int  // per test: panel coders passing it (usable tests only)
	correct int    // resolved coders in the panel
	scores  []int  // CodeT's dual agreement of each panel coder, over the usable tests
}

func newPanelView(pr *prepared, panel []int) *panelView {
	v := &panelView{pr: pr, panel: panel, in: make([]bool, len(pr.in.Coders)), usable: pr.all.clone(),
		passes: make([]int, len(pr.in.Tests))}
	for _, c := range panel {
		v.in[c] = true
		v.usable.andNot(pr.env[c])
		if pr.in.Coders[c].Resolved {
			v.correct++
		}
	}
	for t := range pr.in.Tests {
		if !v.usable.has(t) {
			continue
		}
		for _, c := range panel {
			if pr.pass[c].has(t) {
				v.passes[t]++
			}
		}
	}
	v.scores = v.agreement()
	return v
}

// agreement is CodeT's dual agreement score of each panel coder: coders passing exactly
// the same usable tests form a group; a coder scores (tests its group passes) × (coders
// in the group), 0 when it passes nothing.
func (v *panelView) agreement() []int {
	scores := make([]int, len(v.panel))
	for i, a := range v.panel {
		passed := v.pr.pass[a].countAnd(v.usable)
		group := 0
		for _, b := range v.panel {
			if v.pr.pass[a].equalWithin(v.pr.pass[b], v.usable) {
				group++
			}
		}
		scores[i] = passed * group
	}
	return scores
}

// kept is the suite rule r vets on this panel.
func (v *panelView) kept(r Rule) set {
	k := len(v.panel)
	s := newSet(len(v.pr.in.Tests))
	for t, test := range v.pr.in.Tests {
		if v.usable.has(t) && r.keep(v.passes[t], k, test) {
			s.add(t)
		}
	}
	return s
}

// addTo adds the panel's counters to every vector in vecs (every band it belongs to).
func (v *panelView) addTo(l layout, vecs ...[]float64) {
	add := func(i int, x float64) {
		for _, vec := range vecs {
			vec[i] += x
		}
	}
	in := v.pr.in
	usable := v.usable.count()
	add(cPanels, 1)
	add(cTests, float64(usable))
	add(cTestsEnv, float64(len(in.Tests)-usable))
	add(cShareCorrect, float64(v.correct)/float64(len(v.panel)))
	for c, coder := range in.Coders {
		switch {
		case v.in[c] || !v.pr.heldOut[c]:
		case coder.Resolved:
			add(cGoodPairs, 1)
		default:
			add(cBadPairs, 1)
		}
	}
	for ri, r := range l.rules {
		kept := v.kept(r)
		v.addRule(l, ri, kept, add)
		if r != Oracle {
			v.addConsensusPicks(l, r, kept, add)
		}
	}
	v.addOtherPicks(l, add)
}

// addRule counts what rule ri's suite is (size, precision against gold and base) and what
// it says about every held-out coder.
func (v *panelView) addRule(l layout, ri int, kept set, add func(int, float64)) {
	pr := v.pr
	n := kept.count()
	add(l.rule(ri, rKept), float64(n))
	if n == 0 {
		add(l.rule(ri, rEmpty), 1)
	}
	add(l.rule(ri, rGoldKnown), float64(kept.countAnd(pr.goldKnown)))
	add(l.rule(ri, rGoldPass), float64(kept.countAnd(pr.goldPass)))
	add(l.rule(ri, rBaseKnown), float64(kept.countAnd(pr.baseKnown)))
	add(l.rule(ri, rBaseFail), float64(kept.countAnd(pr.baseFail)))
	for c, coder := range pr.in.Coders {
		if v.in[c] || !pr.heldOut[c] {
			continue
		}
		var field int
		switch {
		case n == 0:
			field = pick(coder.Resolved, rGoodEmpty, rBadEmpty)
		case pr.fail[c].meets(kept):
			field = pick(coder.Resolved, rGoodFailed, rBadCaught)
		case pr.env[c].meets(kept):
			field = pick(coder.Resolved, rGoodEnv, rBadEnv)
		default:
			field = pick(coder.Resolved, rPassGood, rPassBad)
		}
		add(l.rule(ri, field), 1)
	}
}

func pick(cond bool, yes, no int) int {
	if cond {
		return yes
	}
	return no
}
