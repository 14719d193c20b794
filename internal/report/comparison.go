package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// DualAgreement scores coders as CodeT does: coders that pass exactly the same tests form
// a group, and each member scores (tests the group passes) × (coders in the group).
// Coders passing no test score 0.
func DualAgreement(coders []string, passes map[string][]bool) map[string]int {
	key := func(row []bool) string {
		b := make([]byte, len(row))
		for i, ok := range row {
			b[i] = '0'
			if ok {
				b[i] = '1'
			}
		}
		return string(b)
	}
	size := map[string]int{}
	for _, c := range coders {
		size[key(passes[c])]++
	}
	out := map[string]int{}
	for _, c := range coders {
		n := 0
		for _, ok := range passes[c] {
			if ok {
				n++
			}
		}
		out[c] = n * size[key(passes[c])]
	}
	return out
}

// Choose applies the pick rule (docs/escalation.md), the hybrid that the replay of
// recorded LLM runs favours (docs/replay.md):
//  1. only coders passing the whole vetted suite are candidates;
//  2. among them, the highest CodeT dual-agreement score over every proposed test;
//  3. then the answers to the probe's inputs that agree most often with the other
//     candidates' (the most typical behaviour);
//  4. then the smallest change from the base revision (lines added plus deleted);
//  5. then the configured order of the coders.
//
// With no candidate it is CodeT's pick over all coders, and the body says that none
// passes every vetted test.
func Choose(s runfile.Summary, c runfile.Comparison) runfile.Pick {
	p := choose(s, c)
	if len(s.Vetted) == 0 && s.Accepted == "" && p.Coder != "" && (s.Protocol == "" || s.Protocol == "dixit") {
		// Every coder "passes every vetted test" of an empty suite: say so rather than
		// claim an agreement that no test backs.
		p.Agreed = false
		agree := fmt.Sprintf("%s passes every vetted test, as do %d others. ", p.Coder, len(p.Candidates)-1)
		p.Why = fmt.Sprintf("No test was vetted, so no test backs this pick among the %d coders. %s", len(p.Candidates), strings.TrimPrefix(p.Why, agree))
	}
	return p
}

func choose(s runfile.Summary, c runfile.Comparison) runfile.Pick {
	if s.Protocol != "" && s.Protocol != "dixit" {
		return protocolPick(s)
	}
	candidates := Consensus(s)
	if s.Accepted != "" { // a human decided: the rule gives way
		p := runfile.Pick{Coder: s.Accepted, Agreed: slices.Contains(candidates, s.Accepted), Candidates: candidates}
		p.Why = fmt.Sprintf("%s's implementation was accepted by a human", s.Accepted)
		for _, d := range s.Decisions {
			if d.Verb == orchestrate.DecideAccept && d.Refused == "" {
				p.Why = fmt.Sprintf("%s's implementation was accepted by @%s", s.Accepted, d.By)
				if d.Reason != "" {
					p.Why += ": " + d.Reason
				}
			}
		}
		p.Why += "."
		return p
	}
	size, total := map[string]int{}, map[string]int{}
	own := ""
	for _, t := range c.Touched {
		size[t.Coder], total[t.Coder] = t.Added+t.Deleted-t.OwnTests, t.Added+t.Deleted
		if t.OwnTests > 0 {
			own = ", not counting the coders' own tests"
		}
	}
	order := map[string]int{}
	for i, coder := range s.Coders {
		order[coder.Name] = i
	}
	if len(candidates) == 0 {
		return bestOfNone(s, c)
	}
	agree := map[string]int{}
	if c.Differential != nil {
		for _, name := range candidates {
			agree[name] = c.Differential.Agreement(name)
		}
	}
	ranked, unchanged := changedFirst(candidates, total, len(c.Touched) > 0)
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		switch {
		case c.Dual[a] != c.Dual[b]:
			return c.Dual[a] > c.Dual[b]
		case agree[a] != agree[b]:
			return agree[a] > agree[b]
		case size[a] != size[b]:
			return size[a] < size[b]
		}
		return order[a] < order[b]
	})
	p := runfile.Pick{Coder: ranked[0], Agreed: true, Candidates: candidates}
	if len(candidates) == 1 {
		p.Why = fmt.Sprintf("%s is the only implementation that passes every vetted test.", p.Coder)
		return p
	}
	p.Why = fmt.Sprintf("%s passes every vetted test, as do %d others. ", p.Coder, len(candidates)-1)
	if len(unchanged) > 0 {
		p.Why += fmt.Sprintf("%s changed nothing from the base revision, so the suite does not tell it from the base: left out. ", strings.Join(unchanged, ", "))
	}
	// Each step keeps the coders the previous ones could not separate from the pick.
	tied := ranked
	narrow := func(score map[string]int) {
		var keep []string
		for _, name := range tied {
			if score[name] == score[p.Coder] {
				keep = append(keep, name)
			}
		}
		tied = keep
	}
	if c.DualTests > 0 {
		narrow(c.Dual)
		if len(tied) == 1 {
			return withWhy(p, "Over all %d tests the testers proposed, its dual-agreement score is the highest (%d: tests passed × implementations passing exactly the same ones).", c.DualTests, c.Dual[p.Coder])
		}
		p.Why += fmt.Sprintf("Over all %d proposed tests, %s share the highest dual-agreement score (%d). ", c.DualTests, strings.Join(tied, ", "), c.Dual[p.Coder])
	}
	if c.Differential != nil {
		narrow(agree)
		if len(tied) == 1 {
			return withWhy(p, "Of these, its answers to the probe's inputs agree with the others' most often (%d shared answers).", agree[p.Coder])
		}
		p.Why += fmt.Sprintf("On the probe's inputs, %s agree with the others most often (%d shared answers each). ", strings.Join(tied, ", "), agree[p.Coder])
	}
	before := len(tied)
	narrow(size)
	if len(tied) == 1 {
		return withWhy(p, "Of these, %s's change from the base revision is the smallest (%d lines%s).", p.Coder, size[p.Coder], own)
	}
	if len(tied) < before {
		p.Why += fmt.Sprintf("Of these, %s change the fewest lines (%d each%s). ", strings.Join(tied, ", "), size[p.Coder], own)
	} else {
		p.Why += fmt.Sprintf("Their changes are the same size (%d lines each%s). ", size[p.Coder], own)
	}
	return withWhy(p, "Nothing else tells them apart, so the first in the configured order is shown.")
}

// changedFirst leaves out of the running the candidates that changed nothing from the base
// revision, when others did: passing the suite unchanged says the suite cannot tell the
// base from a solution, not that doing nothing solves the spec. known says whether sizes
// were measured at all.
func changedFirst(candidates []string, size map[string]int, known bool) (ranked, unchanged []string) {
	for _, name := range candidates {
		if known && size[name] == 0 {
			unchanged = append(unchanged, name)
		} else {
			ranked = append(ranked, name)
		}
	}
	if len(ranked) == 0 {
		return append([]string(nil), candidates...), nil
	}
	return ranked, unchanged
}

// protocolPick is the other protocols' own choice: the coder they accepted, else the
// first coder's last work.
func protocolPick(s runfile.Summary) runfile.Pick {
	if s.Final != "" {
		return runfile.Pick{Coder: s.Final, Agreed: true, Candidates: []string{s.Final},
			Why: fmt.Sprintf("The %s protocol accepted %s's work.", s.Protocol, s.Final)}
	}
	first := ""
	if len(s.Coders) > 0 {
		first = s.Coders[0].Name
	}
	return runfile.Pick{Coder: first, Candidates: []string{},
		Why: fmt.Sprintf("The %s protocol accepted no work; this is %s's last.", s.Protocol, first)}
}

func withWhy(p runfile.Pick, format string, args ...any) runfile.Pick {
	p.Why += fmt.Sprintf(format, args...)
	return p
}

// bestOfNone is CodeT's pick when no coder passes the whole suite: the highest dual
// agreement over the proposed tests, else the coder whose last suite run passed the most.
func bestOfNone(s runfile.Summary, c runfile.Comparison) runfile.Pick {
	passed := map[string]int{}
	for _, ev := range s.Events {
		if ev.Kind == orchestrate.EvSuite {
			passed[ev.Agent] = ev.Passed
		}
	}
	best := ""
	for _, coder := range s.Coders {
		name := coder.Name
		if best == "" || c.Dual[name] > c.Dual[best] || (c.Dual[name] == c.Dual[best] && passed[name] > passed[best]) {
			best = name
		}
	}
	p := runfile.Pick{Coder: best, Candidates: []string{}}
	if c.Dual[best] > 0 {
		p.Why = fmt.Sprintf("No implementation passes every vetted test; %s has the highest dual-agreement score over the %d proposed tests (%d), CodeT's pick.", best, c.DualTests, c.Dual[best])
		return p
	}
	p.Why = fmt.Sprintf("No implementation passes every vetted test; %s passed the most (%d of %d) in its last run of the suite.", best, passed[best], len(s.Vetted))
	return p
}
