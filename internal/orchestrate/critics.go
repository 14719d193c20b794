package orchestrate

import (
	"context"
	"fmt"
)

// critics follows seed 003: a coder writes code and its own tests; critics review it and
// answer {lgtm, corrections}; the coder, as fixer, applies the corrections; once every
// critic approves, the judge builds and runs the tests, and failures go back to the
// fixer. It ends when the approved code passes its tests, or after max_iterations.
func (r *Run) critics(ctx context.Context) (*Result, error) {
	coder := r.coders[0]
	if err := r.solve(ctx, coder, askToSolveWithTests); err != nil {
		return nil, err
	}
	for {
		r.round++
		r.emit(ctx, Event{Kind: EvRound})
		corrections, err := r.review(ctx, coder)
		if err != nil {
			return nil, err
		}
		var next string
		if len(corrections) > 0 {
			next = fixFromReview(corrections)
		} else {
			n, failed, err := r.runOwnTests(ctx, coder)
			if err != nil {
				return nil, err
			}
			if reason, out := r.allTampered(); out {
				return r.escalate(ctx, CodersTampered, reason)
			}
			if n > 0 && len(failed) == 0 {
				return r.accept(ctx, coder, fmt.Sprintf("every critic approves %s's code and its %d test files pass (iteration %d)", coder.Name(), n, r.round))
			}
			next = ownTestsFail(n, failed)
		}
		if r.round == r.cfg.MaxIterations {
			return r.escalate(ctx, IterationCap, fmt.Sprintf("%s's code is not yet approved and passing after %d iterations (max_iterations)", coder.Name(), r.round))
		}
		if err := r.solve(ctx, coder, next); err != nil {
			return nil, err
		}
	}
}

// review asks every critic about the coder's current work and gathers the corrections
// of those that do not approve; none means every critic approves.
func (r *Run) review(ctx context.Context, coder *coderSlot) ([]string, error) {
	files, err := r.store.Files(ctx, coder.commit)
	if err != nil {
		return nil, fmt.Errorf("files of coder %s: %w", coder.Name(), err)
	}
	request := reviewRequest(files)
	var corrections []string
	for _, critic := range r.advisors {
		text, err := r.answer(ctx, critic, request)
		if err != nil {
			return nil, err
		}
		v := parseReview(text)
		detail := "approves"
		if !v.LGTM {
			detail = fmt.Sprintf("asks for %d corrections", len(v.Corrections))
			for _, c := range v.Corrections {
				corrections = append(corrections, fmt.Sprintf("(%s) %s", critic.Name(), c))
			}
		}
		r.emit(ctx, Event{Kind: EvReview, Agent: critic.Name(), Detail: detail})
	}
	return corrections, nil
}
