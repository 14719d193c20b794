package orchestrate

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
)

// The Dixit rule: a candidate test is run against every coder, and it enters the suite
// only if most coders pass it but not all.

// Class is a candidate test's classification under the Dixit rule.
type Class string

const (
	TooWeak Class = "TOO_WEAK" // every coder passes: it tells the coders nothing new
	TooHard Class = "TOO_HARD" // fewer than the threshold pass: broken, wrong, or ahead of its time
	Ideal   Class = "IDEAL"    // most coders pass but not all: it enters the vetted suite
)

// classify runs a new proposal against every coder and applies the Dixit rule (seed
// 000's classify). Every proposal is kept, vetted or not: the escalation ranks the
// implementations on all of them.
func (r *Run) classify(ctx context.Context, test Candidate) (Class, Vetted, error) {
	if l := r.laneOf(test.Tester); l != nil {
		l.proposals = append(l.proposals, test) // the run takes them in tester order
	} else {
		r.proposals = append(r.proposals, test)
	}
	return r.judgeCandidate(ctx, test, "")
}

// classifyAgain re-classifies a hibernated tester's stacked test, proposed and kept
// before; its event says "stacked".
func (r *Run) classifyAgain(ctx context.Context, test Candidate) (Class, Vetted, error) {
	return r.judgeCandidate(ctx, test, "stacked")
}

// judgeCandidate runs a candidate against every coder, applies the Dixit rule and emits
// the classification with detail.
func (r *Run) judgeCandidate(ctx context.Context, test Candidate, detail string) (Class, Vetted, error) {
	jobs := make([]ci.Job, 0, len(r.coders))
	for _, coder := range r.coders {
		tree, err := r.store.Tree(ctx, coder.commit)
		if err != nil {
			return "", Vetted{}, fmt.Errorf("tree of coder %s: %w", coder.Name(), err)
		}
		jobs = append(jobs, ci.Job{Coder: coder.Name(), Tree: tree, Test: test.Test()})
	}
	verdicts, err := r.runJudge(ctx, test.Tester, jobs)
	if err != nil {
		return "", Vetted{}, err
	}
	v := Vetted{Candidate: test, Round: r.round}
	cells := make([]Cell, len(jobs))
	for i, verdict := range verdicts {
		cells[i] = newCell(jobs[i].Coder, test.ID, verdict)
		switch {
		case verdict.Outcome == ci.PrepareFailed:
			// The coder's dependencies could not be installed: that says nothing about
			// the test, so the coder has no vote on it (ensure_passes tells it why).
		case verdict.Outcome == ci.Tampered:
			// Its run proves neither a pass nor a fail: no vote (tamper.go).
		case verdict.Passed():
			v.PassedBy = append(v.PassedBy, jobs[i].Coder)
		default:
			v.FailedBy = append(v.FailedBy, jobs[i].Coder)
		}
	}
	class := r.dixitRule(len(v.PassedBy), len(v.PassedBy)+len(v.FailedBy))
	_, _, blamed := TamperCount(cells)
	if blamed {
		// Most coders tampered on it: the test ends its own process or rewrites its
		// report, and no coder is blamed for it.
		class = TooHard
	}
	r.emit(ctx, Event{Kind: EvClassify, Agent: test.Tester, Test: test.ID, Class: class, Passed: len(v.PassedBy), Cells: cells, Detail: detail})
	if !blamed {
		r.noteTampered(ctx, test.Tester, cells)
	}
	return class, v, nil
}

// dixitRule: everyone passes → TOO_WEAK; fewer than the threshold → TOO_HARD; else IDEAL.
// With no coder voting (none prepared, or all tampered), nothing backs the test: TOO_HARD.
func (r *Run) dixitRule(passed, coders int) Class {
	switch {
	case coders == 0:
		return TooHard
	case passed == coders:
		return TooWeak
	case float64(passed) < r.cfg.IdealThreshold*float64(coders)-1e-9:
		return TooHard
	default:
		return Ideal
	}
}
