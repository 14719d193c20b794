package pick

import (
	"slices"
	"sort"
)

// The rules a setting may name. Both start from the protocol's own answer, the candidates
// (the coders passing the whole vetted suite); they differ in what ranks the candidates.
const (
	RuleHybrid    = "hybrid"     // dual agreement first (docs/replay.md)
	RuleMostTests = "most_tests" // proposed tests passed first (docs/real-patches.md)
)

// Hybrid is the rule the replay of recorded LLM runs favoured before real patches were
// measured (docs/replay.md, docs/escalation.md):
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
	return rank(in, []ranking{dualStep(in), probeStep(in), sizeStep}, []ranking{dualStep(in), suiteStep})
}

// MostTests is Hybrid with one step first: among the candidates, the most of every
// proposed test passed, vetted or not. On weak recorded HumanEval panels (most coders
// wrong) it beats the hybrid; on diverse ones and on real sympy patches it does not
// (docs/real-patches.md). Its cost: a coder that shares a wrong test's mistake gains by it.
//
// With no candidate: the most proposed tests passed, then dual agreement, then the most
// vetted tests passed in the coder's last run of the suite.
func MostTests(in Input) Choice {
	most := proposedStep(in)
	return rank(in, []ranking{most, dualStep(in), probeStep(in), sizeStep}, []ranking{most, dualStep(in), suiteStep})
}

// ranking is one step of a rule: the score it ranks by (higher first, unless lower), and
// whether it applies to this run at all (a score that was not measured ranks nothing).
type ranking struct {
	step  Step
	score func(Coder) int
	lower bool
	on    bool
}

func (r ranking) better(a, b Coder) (decided, first bool) {
	sa, sb := r.score(a), r.score(b)
	if !r.on || sa == sb {
		return false, false
	}
	return true, (sa < sb) == r.lower
}

func dualStep(in Input) ranking {
	return ranking{step: StepDual, score: func(c Coder) int { return c.Dual }, on: in.DualTests > 0}
}

func proposedStep(in Input) ranking {
	return ranking{step: StepProposed, score: func(c Coder) int { return c.Proposed }, on: in.DualTests > 0 && in.Counted}
}

func probeStep(in Input) ranking {
	return ranking{step: StepProbe, score: func(c Coder) int { return c.Agreement }, on: in.Probed}
}

var (
	sizeStep  = ranking{step: StepSize, score: Coder.size, lower: true, on: true}
	suiteStep = ranking{step: StepNoneSuite, score: func(c Coder) int { return c.SuitePassed }, on: true}
)

// sortBy orders coders by the steps, then keeps their order.
func sortBy(coders []Coder, steps []ranking) {
	sort.SliceStable(coders, func(i, j int) bool {
		for _, s := range steps {
			if decided, first := s.better(coders[i], coders[j]); decided {
				return first
			}
		}
		return false
	})
}

// rank ranks the candidates by steps and says, step by step, what set the pick apart;
// with no candidate it ranks every coder by none.
func rank(in Input, steps, none []ranking) Choice {
	candidates := Candidates(in)
	if len(candidates) == 0 {
		return bestOfNone(in, none)
	}
	byName := map[string]Coder{}
	for _, c := range in.Coders {
		byName[c.Name] = c
	}
	names, unchanged := changedFirst(candidates, byName, in.Sized)
	ranked := make([]Coder, len(names))
	for i, name := range names {
		ranked[i] = byName[name]
	}
	sortBy(ranked, steps)
	ch := Choice{Coder: ranked[0].Name, Agreed: true, Candidates: candidates}
	for _, c := range ranked {
		ch.Ranked = append(ch.Ranked, c.Name)
	}
	if len(candidates) == 1 {
		ch.Reasons = []Reason{{Step: StepOnly}}
		return ch
	}
	ch.Reasons = []Reason{{Step: StepCandidates, Score: len(candidates) - 1}}
	if len(unchanged) > 0 {
		ch.Reasons = append(ch.Reasons, Reason{Step: StepUnchanged, Coders: unchanged})
	}
	ch.Reasons = append(ch.Reasons, narrowing(ranked, steps)...)
	return ch
}

// narrowing is the reasons of the steps that applied: each keeps the coders the steps
// before it could not separate from the pick, until one is left.
func narrowing(ranked []Coder, steps []ranking) []Reason {
	pick, tied := ranked[0], ranked
	var out []Reason
	for _, s := range steps {
		if !s.on {
			continue
		}
		var keep []Coder
		var names []string
		for _, c := range tied {
			if s.score(c) == s.score(pick) {
				keep, names = append(keep, c), append(names, c.Name)
			}
		}
		r := Reason{Step: s.step, Coders: names, Score: s.score(pick), Decided: len(keep) == 1, Narrowed: len(keep) < len(tied)}
		out, tied = append(out, r), keep
		if r.Decided {
			return out
		}
	}
	var names []string
	for _, c := range tied {
		names = append(names, c.Name)
	}
	return append(out, Reason{Step: StepOrder, Coders: names})
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

// bestOfNone is the pick when no coder passes the whole suite: every coder ranked by
// steps; the reason is the first step that tells the pick from the next coder (or the
// last step when nothing does).
func bestOfNone(in Input, steps []ranking) Choice {
	ranked := slices.Clone(in.Coders)
	sortBy(ranked, steps)
	ch := Choice{Candidates: []string{}}
	for _, c := range ranked {
		ch.Ranked = append(ch.Ranked, c.Name)
	}
	if len(ranked) == 0 {
		ch.Reasons = []Reason{{Step: StepNoneSuite}}
		return ch
	}
	best := ranked[0]
	ch.Coder = best.Name
	why := steps[len(steps)-1]
	for _, s := range steps {
		if s.on && s.score(best) > 0 {
			why = s
			break
		}
	}
	step := map[Step]Step{StepDual: StepNoneDual, StepProposed: StepNoneProposed}[why.step]
	if step == "" {
		step = why.step
	}
	ch.Reasons = []Reason{{Step: step, Score: why.score(best)}}
	return ch
}
