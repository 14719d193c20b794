package orchestrate

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
)

// blind follows seed 004: a planner writes tests from the description alone (each with
// an input, an expected output, its reasoning and a category, plus the requirements,
// assumptions and uncertainties it read); the coder implements the spec and writes those
// tests as its own, and iterates on them with full feedback. When they pass, the hidden
// tests run as a final check that tells the coder only whether it passed, the fraction
// passing and a generic hint: never an expected value, never a test.
func (r *Run) blind(ctx context.Context) (*Result, error) {
	planner, coder := r.advisors[0], r.coders[0]
	text, err := r.answer(ctx, planner, planRequest)
	if err != nil {
		return nil, err
	}
	plan := parsePlan(text)
	r.emit(ctx, Event{Kind: EvPlan, Agent: planner.Name(), Detail: plan.summary()})
	if err := r.solve(ctx, coder, implementPlan(plan)); err != nil {
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
		var next string
		switch {
		case n == 0 || len(failed) > 0:
			next = ownTestsFail(n, failed)
		case len(r.hidden) == 0:
			return r.accept(ctx, coder, fmt.Sprintf("%s's own %d test files pass; there are no hidden tests to check against", coder.Name(), n))
		default:
			passed, hint, err := r.hiddenCheck(ctx, coder)
			if err != nil {
				return nil, err
			}
			if reason, out := r.allTampered(); out {
				return r.escalate(ctx, CodersTampered, reason)
			}
			if passed == len(r.hidden) {
				return r.accept(ctx, coder, fmt.Sprintf("%s passes its own %d test files and all %d hidden tests (iteration %d)", coder.Name(), n, passed, r.round))
			}
			next = blindFeedback(passed, len(r.hidden), hint)
		}
		if r.round == r.cfg.MaxIterations {
			return r.escalate(ctx, IterationCap, fmt.Sprintf("%s is not passing its own and the hidden tests after %d iterations (max_iterations)", coder.Name(), r.round))
		}
		if err := r.solve(ctx, coder, next); err != nil {
			return nil, err
		}
	}
}

// hiddenCheck runs the hidden tests on the coder's work. It returns how many pass and a
// hint chosen from the kinds of failure only; nothing a test printed leaves this function
// except into the event, which only people read.
func (r *Run) hiddenCheck(ctx context.Context, coder *coderSlot) (int, string, error) {
	tree, err := r.store.Tree(ctx, coder.commit)
	if err != nil {
		return 0, "", fmt.Errorf("tree of coder %s: %w", coder.Name(), err)
	}
	jobs := make([]ci.Job, len(r.hidden))
	for i, t := range r.hidden {
		jobs[i] = ci.Job{Coder: coder.Name(), Tree: tree, Test: t.Test()}
	}
	verdicts, err := r.runJudge(ctx, "", jobs)
	if err != nil {
		return 0, "", err
	}
	passed, kinds := 0, map[ci.Outcome]bool{}
	cells := make([]Cell, len(verdicts))
	for i, v := range verdicts {
		cells[i] = newCell(coder.Name(), r.hidden[i].ID, v)
		if v.Passed() {
			passed++
		} else {
			kinds[v.Outcome] = true
		}
	}
	r.emit(ctx, Event{Kind: EvHidden, Agent: coder.Name(), Passed: passed, Cells: cells,
		Detail: fmt.Sprintf("%d of %d hidden tests pass", passed, len(verdicts))})
	// The hidden tests are people's, and one coder is judged: a tampered run is its doing.
	r.noteTampered(ctx, coder.Name(), cells)
	var hint string
	switch {
	case kinds[ci.BuildFailed]:
		hint = "Some hidden tests do not build against your code: check that names and signatures are exactly those the description gives."
	case kinds[ci.Timeout]:
		hint = "Some hidden tests run out of time: check that your code terminates quickly on every input the description allows."
	case kinds[ci.OverLimit]:
		hint = "Some hidden tests exceed a resource limit: check memory use and output size."
	default:
		hint = "Some cases the description implies are not handled yet: re-read it for boundaries, edge cases and error handling, add tests for them, and improve the code."
	}
	return passed, hint, nil
}

// blindFeedback is all the coder learns from the hidden tests.
func blindFeedback(passed, total int, hint string) string {
	return fmt.Sprintf("Your tests pass. A final check with other tests passed %d of %d (%.0f%%). %s", passed, total, 100*float64(passed)/float64(total), hint)
}
