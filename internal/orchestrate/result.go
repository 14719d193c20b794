package orchestrate

import "sort"

// result is what the run hands over when it stops.
func (r *Run) result(outcome Outcome, reason string) *Result {
	replayed, live := r.counts()
	res := &Result{
		Protocol: r.cfg.Protocol, Outcome: outcome, Reason: reason, Rounds: r.round,
		Vetted: append([]Vetted(nil), r.suite...), Proposals: append([]Candidate(nil), r.proposals...), Events: r.events,
		Replayed: replayed, Live: live,
		Spend: r.spent, SpentBy: r.spentBy, CostUSD: r.cost(),
	}
	for _, c := range r.coders {
		res.Coders = append(res.Coders, CoderState{Name: c.Name(), Solves: c.solves, Commit: c.commit, Breaks: c.breaks,
			Tampered: r.tamperOf(c.Name())})
	}
	for _, t := range r.testers {
		ts := TesterState{Name: t.Name(), State: "active", Proposals: t.draws}
		if t.hibernated {
			ts.State, ts.Stacked = "hibernated", append([]Candidate(nil), t.stacked[:]...)
		}
		res.Testers = append(res.Testers, ts)
	}
	for test := range r.retired {
		res.Retired = append(res.Retired, test)
	}
	sort.Strings(res.Retired)
	res.Decisions = append([]AppliedDecision(nil), r.decided...)
	res.Accepted = r.accepted
	res.Standing = r.standing(outcome)
	return res
}
