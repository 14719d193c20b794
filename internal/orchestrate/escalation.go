package orchestrate

// How a run stops for a human and takes up the answer: where it stands, the decision
// journalled and checked against that, then carried out (decision.go has the decisions
// themselves: their words and Check; outcomes.go what each stop offers).

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// errNoDecision: nobody has answered the escalation yet; the run ends there.
var errNoDecision = errors.New("no decision")

// humanAgent is the agent a decision's journal entry names; agent names cannot hold "(".
const humanAgent = "(human)"

// escalate ends the run and hands the reason to a human.
func (r *Run) escalate(ctx context.Context, outcome Outcome, reason string) (*Result, error) {
	r.emit(ctx, Event{Kind: EvEscalate, Outcome: outcome, Detail: reason})
	return r.result(outcome, reason), nil
}

// standing is where the run stands at an escalation.
func (r *Run) standing(outcome Outcome) Standing {
	s := Standing{Protocol: r.cfg.Protocol, Outcome: outcome, Rounds: r.round, MaxRounds: r.cfg.MaxRounds,
		Tokens: r.spent.Tokens(), CostUSD: r.cost(), Seconds: r.spent.Seconds, Accepted: r.accepted, Replaceable: r.newCoder != nil}
	if outcome == BudgetExhausted {
		s.Crossed = r.crossed
	}
	if s.Protocol == "" {
		s.Protocol = "dixit"
	}
	for _, c := range r.coders {
		s.Coders = append(s.Coders, c.Name())
	}
	for _, v := range r.suite {
		s.Vetted = append(s.Vetted, SuiteEntry{ID: v.ID, Number: v.Number})
	}
	for _, t := range r.testers {
		if t.hibernated {
			s.Hibernated = append(s.Hibernated, t.Name())
		}
	}
	for _, d := range r.decided {
		s.Decided = append(s.Decided, d.ID)
	}
	return s
}

// decide takes up the humans' answers to a stop, in the order they came: each is
// journalled, and one that does not fit is journalled as refused, so it is never asked
// about again. It returns the first that fits, and for a replace the fresh coder made
// while it was checked (nil when replayed: replace makes it then); ok is false when no
// answer is left.
func (r *Run) decide(ctx context.Context, outcome Outcome) (Decision, Coder, bool, error) {
	for {
		var fresh Coder
		want := record{Effect: "decide", Agent: humanAgent, Draw: len(r.decided) + 1}
		rec, _, err := r.effect(want, func() (record, error) {
			d, ok, err := r.pending()
			if err != nil {
				return record{}, fmt.Errorf("read the decisions: %w", err)
			}
			if !ok {
				return record{}, errNoDecision
			}
			rec := record{Decision: &d}
			if err := Check(d, r.standing(outcome)); err != nil {
				rec.Refused = err.Error()
			} else if d.Verb == DecideReplace {
				// Made now, so a replacement that cannot be made is refused, not journalled
				// as taken and then failed on every resume.
				made, err := r.newCoder(d.Args[0], successor(d.Args[0], r.taken()))
				if err != nil {
					rec.Refused = "no fresh coder can be brought in: " + err.Error()
				}
				fresh = made
			}
			return rec, nil
		})
		if errors.Is(err, errNoDecision) {
			return Decision{}, nil, false, nil
		}
		if err != nil {
			return Decision{}, nil, false, err
		}
		if rec.Decision == nil {
			return Decision{}, nil, false, fmt.Errorf("journal entry %d: a decision without its content", rec.Seq)
		}
		d := *rec.Decision
		r.decided = append(r.decided, AppliedDecision{Decision: d, Round: r.round, Refused: rec.Refused})
		if rec.Refused != "" {
			r.emit(ctx, Event{Kind: EvDecide, Agent: d.By, Detail: fmt.Sprintf("%s refused: %s", d.Describe(), rec.Refused)})
			continue
		}
		ev := Event{Kind: EvDecide, Agent: d.By, Detail: d.Describe()}
		switch d.Verb {
		case DecideDrop:
			e, _ := r.standing(outcome).Test(d.Args[0])
			ev.Test = e.ID
		case DecideReplace, DecideAccept:
			ev.Coder = d.Args[0]
		}
		r.emit(ctx, ev)
		return d, fresh, true, nil
	}
}

// pending returns the first decision not taken up yet.
func (r *Run) pending() (Decision, bool, error) {
	if r.decisions == nil {
		return Decision{}, false, nil
	}
	all, err := r.decisions()
	if err != nil {
		return Decision{}, false, err
	}
	for _, d := range all {
		if !slices.ContainsFunc(r.decided, func(a AppliedDecision) bool { return a.ID == d.ID }) {
			return d, true, nil
		}
	}
	return Decision{}, false, nil
}

// apply carries out a fitting decision that takes the run on (accept ends it instead,
// in main); fresh is the coder a replace brought in, if decide made it.
func (r *Run) apply(ctx context.Context, d Decision, fresh Coder) error {
	switch d.Verb {
	case DecideDrop:
		e, _ := r.standing("").Test(d.Args[0])
		r.suite = slices.DeleteFunc(r.suite, func(v Vetted) bool { return v.ID == e.ID })
		r.dropped = append(r.dropped, e.ID)
	case DecideReplace:
		return r.replace(ctx, d.Args[0], fresh)
	case DecideWake:
		// Each sleeping tester first tries to revive as usual, at the next round; if its
		// stacked tests are still too hard, the human's word wakes it anyway (revive).
		for _, t := range r.testers {
			t.forceWake = t.hibernated
		}
	case DecideBudget:
		amount, _ := budgetAmount(d.Args[0], d.Args[1])
		switch d.Args[0] {
		case BudgetRounds:
			r.cfg.MaxRounds = int(amount) // capped by budgetAmount: no overflow
		case BudgetTokens:
			r.cfg.Budget.Tokens = int(amount)
		case BudgetCost:
			r.cfg.Budget.CostUSD = amount
		case BudgetWallTime:
			r.cfg.Budget.WallTime = time.Duration(amount * float64(time.Second))
		}
	case DecideContinue:
		r.cfg.MaxRounds = max(r.cfg.MaxRounds, r.round+r.maxRounds)
	}
	return nil
}

// replace puts a fresh coder in a coder's place: same settings, a new seed and a new name
// (basil, then basil_2, basil_3), starting from the spec. The main loop then brings it up
// to the whole vetted suite before the testers' next turn, as every coder.
// fresh is the coder decide made when it took the decision up; nil on a replay, when it
// is made here the same way.
func (r *Run) replace(ctx context.Context, name string, fresh Coder) error {
	if r.newCoder == nil {
		return errors.New("this run cannot replace coders (its population has no replacements)")
	}
	i := slices.IndexFunc(r.coders, func(c *coderSlot) bool { return c.Name() == name })
	if i < 0 {
		return fmt.Errorf("no coder %s", name)
	}
	if fresh == nil { // replayed: made here, as when the decision was first taken
		var err error
		if fresh, err = r.newCoder(name, successor(name, r.taken())); err != nil {
			return fmt.Errorf("replace coder %s: %w", name, err)
		}
	}
	r.coders[i] = &coderSlot{Coder: fresh}
	r.replaced = append(r.replaced, name)
	return r.solve(ctx, r.coders[i], askToSolve)
}

// taken is every agent name the run has used.
func (r *Run) taken() map[string]bool {
	names := map[string]bool{}
	for _, c := range r.coders {
		names[c.Name()] = true
	}
	for _, t := range r.testers {
		names[t.Name()] = true
	}
	for _, a := range r.advisors {
		names[a.Name()] = true
	}
	for _, n := range r.replaced {
		names[n] = true
	}
	return names
}

var generation = regexp.MustCompile(`^(.*)_([0-9]+)$`)

// successor names the coder that replaces name: basil_2 for basil, basil_3 for basil_2,
// skipping names in use.
func successor(name string, taken map[string]bool) string {
	stem, n := name, 1
	if m := generation.FindStringSubmatch(name); m != nil {
		stem = m[1]
		n, _ = strconv.Atoi(m[2])
	}
	for {
		n++
		if next := fmt.Sprintf("%s_%d", stem, n); !taken[next] {
			return next
		}
	}
}
