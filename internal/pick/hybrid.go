package pick

import (
	"slices"
	"sort"
)

// Hybrid is the rule the replay of recorded LLM runs favours (docs/replay.md,
// docs/escalation.md):
//  1. only coders passing the whole vetted suite are candidates; a candidate that changed
//     nothing from the base revision is left out while another changed something (the
//     suite cannot tell it from the base, which is no solution);
//  2. among them, the highest CodeT dual-agreement score over every proposed test;
//  3. then the answers to the probe's inputs that agree most often with the other
//     candidates' (the most typical behaviour);
//  4. then the smallest change from the base revision (lines added plus deleted, the
//     coder's own tests left out);
//  5. then the configured order of the coders.
//
// With no candidate it is CodeT's pick over all coders: the highest dual-agreement score,
// then the most vetted tests passed in the coder's last run of the suite.
func Hybrid(in Input) Choice {
	candidates := Candidates(in)
	if len(candidates) == 0 {
		return bestOfNone(in)
	}
	byName := map[string]Coder{}
	order := map[string]int{}
	for i, c := range in.Coders {
		byName[c.Name], order[c.Name] = c, i
	}
	ranked, unchanged := changedFirst(candidates, byName, in.Sized)
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := byName[ranked[i]], byName[ranked[j]]
		switch {
		case a.Dual != b.Dual:
			return a.Dual > b.Dual
		case a.Agreement != b.Agreement:
			return a.Agreement > b.Agreement
		case a.size() != b.size():
			return a.size() < b.size()
		}
		return order[a.Name] < order[b.Name]
	})
	pick := byName[ranked[0]]
	ch := Choice{Coder: pick.Name, Agreed: true, Candidates: candidates, Ranked: ranked}
	if len(candidates) == 1 {
		ch.Reasons = []Reason{{Step: StepOnly}}
		return ch
	}
	ch.Reasons = []Reason{{Step: StepCandidates, Score: len(candidates) - 1}}
	if len(unchanged) > 0 {
		ch.Reasons = append(ch.Reasons, Reason{Step: StepUnchanged, Coders: unchanged})
	}
	// Each step keeps the coders the previous ones could not separate from the pick.
	tied := ranked
	narrow := func(step Step, score func(Coder) int) (decided bool) {
		var keep []string
		for _, name := range tied {
			if score(byName[name]) == score(pick) {
				keep = append(keep, name)
			}
		}
		r := Reason{Step: step, Coders: keep, Score: score(pick), Decided: len(keep) == 1, Narrowed: len(keep) < len(tied)}
		tied = keep
		ch.Reasons = append(ch.Reasons, r)
		return r.Decided
	}
	if in.DualTests > 0 {
		if narrow(StepDual, func(c Coder) int { return c.Dual }) {
			return ch
		}
	}
	if in.Probed {
		if narrow(StepProbe, func(c Coder) int { return c.Agreement }) {
			return ch
		}
	}
	if narrow(StepSize, Coder.size) {
		return ch
	}
	ch.Reasons = append(ch.Reasons, Reason{Step: StepOrder, Coders: slices.Clone(tied)})
	return ch
}

// changedFirst leaves out of the running the candidates that changed nothing from the base
// revision, when others did: passing the suite unchanged says the suite cannot tell the
// base from a solution, not that doing nothing solves the spec. sized says whether sizes
// were measured at all.
func changedFirst(candidates []string, coders map[string]Coder, sized bool) (ranked, unchanged []string) {
	for _, name := range candidates {
		if sized && coders[name].Lines == 0 {
			unchanged = append(unchanged, name)
		} else {
			ranked = append(ranked, name)
		}
	}
	if len(ranked) == 0 {
		return slices.Clone(candidates), nil
	}
	return ranked, unchanged
}

// bestOfNone is CodeT's pick when no coder passes the whole suite: the highest dual
// agreement over the proposed tests, else the coder whose last suite run passed the most.
func bestOfNone(in Input) Choice {
	ranked := slices.Clone(in.Coders)
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		if a.Dual != b.Dual {
			return a.Dual > b.Dual
		}
		return a.SuitePassed > b.SuitePassed
	})
	ch := Choice{Candidates: []string{}}
	for _, c := range ranked {
		ch.Ranked = append(ch.Ranked, c.Name)
	}
	best := Coder{}
	if len(ranked) > 0 {
		best = ranked[0]
	}
	ch.Coder = best.Name
	if best.Dual > 0 {
		ch.Reasons = []Reason{{Step: StepNoneDual, Score: best.Dual}}
	} else {
		ch.Reasons = []Reason{{Step: StepNoneSuite, Score: best.SuitePassed}}
	}
	return ch
}
