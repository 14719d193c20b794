package orchestrate

import (
	"context"
	"fmt"
)

// single is the baseline every other protocol must beat (DESIGN.md §2): one coder writes
// the code and its own tests, the judge runs those tests, and what fails goes back to the
// coder, until they pass or max_iterations checks were made.
func (r *Run) single(ctx context.Context) (*Result, error) {
	coder := r.coders[0]
	if err := r.solve(ctx, coder, askToSolveWithTests); err != nil {
		return nil, err
	}
	for {
		r.round++
		r.emit(ctx, Event{Kind: EvRound})
		n, failed, err := r.runOwnTests(ctx, coder)
		if err != nil {
			return nil, err
		}
		if reason, out := r.allTampered(); out {
			return r.escalate(ctx, CodersTampered, reason)
		}
		if n > 0 && len(failed) == 0 {
			return r.accept(ctx, coder, fmt.Sprintf("%s's own %d test files pass (check %d)", coder.Name(), n, r.round))
		}
		if r.round == r.cfg.MaxIterations {
			return r.escalate(ctx, IterationCap, fmt.Sprintf("%s's own tests still fail after %d checks (max_iterations)", coder.Name(), r.round))
		}
		if err := r.solve(ctx, coder, ownTestsFail(n, failed)); err != nil {
			return nil, err
		}
	}
}
