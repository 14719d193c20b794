package orchestrate

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/words"
)

// The Dixit protocol's main loop, as seed 000's main reads (DESIGN.md §1): every coder
// solves; then each round every coder must pass the vetted suite (ensurePasses, coders.go)
// and every tester adds a test (proposeTest) or, asleep, attempts its revival
// (attemptRevival, testers.go); a round that adds none ends the loop. classify and the
// Dixit rule are in dixitrule.go.

// stop is why the loop handed over to a human.
type stop struct {
	outcome Outcome
	reason  string
}

// main is the seed's main. Each stop is a question for a human: the run goes on if a
// decision answers it, and ends otherwise.
func (r *Run) main(ctx context.Context) (*Result, error) {
	turn := r.play
	for {
		s, err := turn(ctx)
		if s, err = r.budgetStop(ctx, s, err); err != nil {
			return nil, err
		}
		r.emit(ctx, Event{Kind: EvEscalate, Outcome: s.outcome, Detail: s.reason})
		d, fresh, ok, err := r.decide(ctx, s.outcome)
		if err != nil {
			return nil, err
		}
		if !ok {
			return r.result(s.outcome, s.reason), nil
		}
		if d.Verb == DecideAccept {
			r.accepted = d.Args[0]
			return r.result(s.outcome, s.reason), nil
		}
		turn = func(ctx context.Context) (stop, error) {
			if err := r.apply(ctx, d, fresh); err != nil {
				return stop{}, err
			}
			return r.play(ctx)
		}
	}
}

// play brings in every coder that has not solved yet (all of them at the start, or the
// rest after a budget stopped the first solves), then runs rounds until one stops. The
// agents of each phase work at once (parallel.go).
func (r *Run) play(ctx context.Context) (stop, error) {
	r.crossed = ""
	if err := r.firstSolves(ctx); err != nil {
		return stop{}, err
	}
	if err := r.retireExisting(ctx); err != nil {
		return stop{}, err
	}
	for {
		r.round++
		r.emit(ctx, Event{Kind: EvRound})
		stuck, err := r.codersPass(ctx)
		if err != nil {
			return stop{}, err
		}
		if t := r.stuckTampered(stuck); t != nil {
			return stop{CodersStuck, fmt.Sprintf("%s and still fails part of the vetted suite after %s",
				tamperReason(stuck.Name(), t), words.Count(r.cfg.MaxCoderRetries, "retry", "retries"))}, nil
		}
		if stuck != nil && len(stuck.breaks) > 0 {
			return stop{CodersStuck, fmt.Sprintf("coder %s still breaks the repository's test %s after %s", stuck.Name(), stuck.breaks[0].Test, words.Count(r.cfg.MaxCoderRetries, "retry", "retries"))}, nil
		}
		if stuck != nil {
			return stop{CodersStuck, fmt.Sprintf("coder %s still fails part of the vetted suite after %s", stuck.Name(), words.Count(r.cfg.MaxCoderRetries, "retry", "retries"))}, nil
		}
		fresh, err := r.newTests(ctx)
		if err != nil {
			return stop{}, err
		}
		if len(fresh) == 0 && r.allHibernated() {
			return stop{AllTestersHibernated, "every tester is hibernated: their last tests were too hard for the coders"}, nil
		}
		if len(fresh) == 0 {
			return stop{TestersExhausted, fmt.Sprintf("no tester found a new test that separates the coders in round %d", r.round)}, nil
		}
		r.enter(ctx, fresh)
		if r.round >= r.cfg.MaxRounds {
			return stop{}, errBudget{BudgetRounds, fmt.Sprintf("max_rounds (%d) reached while testers still find new tests", r.cfg.MaxRounds)}
		}
	}
}

// firstSolves asks every coder that has not solved yet for its first solution.
func (r *Run) firstSolves(ctx context.Context) error {
	var waiting []*coderSlot
	for _, coder := range r.coders {
		if coder.draws == 0 {
			waiting = append(waiting, coder)
		}
	}
	return r.parallel(ctx, names(waiting), func(ctx context.Context, i int) (bool, error) {
		return false, r.solve(ctx, waiting[i], askToSolve)
	})
}

// codersPass is every coder's ensurePasses; stuck is the first coder, in order, that
// still fails part of the suite.
func (r *Run) codersPass(ctx context.Context) (stuck *coderSlot, err error) {
	failed := make([]bool, len(r.coders))
	err = r.parallel(ctx, names(r.coders), func(ctx context.Context, i int) (bool, error) {
		ok, err := r.ensurePasses(ctx, r.coders[i])
		failed[i] = err == nil && !ok
		return failed[i], err
	})
	if err != nil {
		return nil, err
	}
	for i, f := range failed {
		if f {
			return r.coders[i], nil
		}
	}
	return nil, nil
}

// newTests is the testers' turn: each awake tester proposes, each sleeping one attempts
// its revival. The tests found are kept in r.found, in tester order, so that a budget
// crossed in the middle of the turn does not lose them (budgetStop enters them).
func (r *Run) newTests(ctx context.Context) ([]Vetted, error) {
	r.found = nil
	got := make([][]Vetted, len(r.testers))
	err := r.parallel(ctx, names(r.testers), func(ctx context.Context, i int) (bool, error) {
		tester := r.testers[i]
		var err error
		if tester.hibernated {
			got[i], err = r.revive(ctx, tester)
		} else {
			got[i], err = r.proposeTest(ctx, tester)
		}
		return false, err
	})
	for _, tests := range got {
		r.found = append(r.found, tests...)
	}
	if err != nil {
		return nil, err
	}
	fresh := r.found
	r.found = nil
	return fresh, nil
}

// names are the agents' names, in order: a phase's lanes.
func names[A Agent](agents []A) []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.Name()
	}
	return out
}

// enter adds IDEAL tests to the vetted suite, numbered after every test given out so far.
func (r *Run) enter(ctx context.Context, fresh []Vetted) {
	for _, test := range fresh {
		r.lastTest++
		test.Number = r.lastTest
		r.suite = append(r.suite, test)
		r.emit(ctx, Event{Kind: EvVet, Agent: test.Tester, Test: test.ID, Detail: fmt.Sprintf("test %d", test.Number)})
	}
}

// budgetStop is where every crossed budget ends up, max_rounds included: the stop
// becomes BUDGET_EXHAUSTED, naming the budget so a decision can raise it, and what the
// testers' turn had found stays found. Any other error passes through.
func (r *Run) budgetStop(ctx context.Context, s stop, err error) (stop, error) {
	b, ok := asBudget(err)
	if !ok {
		return s, err
	}
	r.enter(ctx, r.found)
	r.found = nil
	r.crossed = b.kind
	return stop{BudgetExhausted, b.what}, nil
}
