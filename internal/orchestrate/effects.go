package orchestrate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// solve asks a coder for a solution: a journalled effect.
func (r *Run) solve(ctx context.Context, coder *coderSlot, message string) error {
	coder.draws++
	want := r.inLane(record{Effect: "solve", Agent: coder.Name(), Draw: coder.draws}, coder.Name())
	rec, replayed, err := r.effect(want, func() (record, error) {
		defer r.begin(ctx, Work{Kind: EvSolve, Agent: coder.Name(), Draw: coder.draws,
			Place: slices.Index(r.coders, coder) + 1, Of: len(r.coders)})()
		return metered(coder.Coder, func() (record, error) { return r.performSolve(ctx, coder, message) })
	})
	if err != nil {
		return err
	}
	if replayed {
		if err := coder.Restore(ctx, rec.Checkpoint); err != nil {
			return fmt.Errorf("replay coder %s solve %d: %w", coder.Name(), coder.draws, err)
		}
	}
	coder.solves++
	coder.commit = rec.Commit
	r.emit(ctx, Event{Kind: EvSolve, Agent: coder.Name(), Detail: fmt.Sprintf("solve %d", coder.draws), Spend: spendOf(rec)})
	return r.charge(coder.Name(), rec.Spend)
}

func (r *Run) performSolve(ctx context.Context, coder *coderSlot, message string) (record, error) {
	commit, err := coder.Solve(ctx, Turn{Message: message, Draw: coder.draws})
	if err != nil {
		return record{}, fmt.Errorf("coder %s solve %d: %w", coder.Name(), coder.draws, err)
	}
	cp, err := coder.Save(ctx)
	if err != nil {
		return record{}, fmt.Errorf("save coder %s: %w", coder.Name(), err)
	}
	return record{Commit: commit, Checkpoint: cp}, nil
}

// propose asks a tester for a test: a journalled effect. ok is false when it has none.
func (r *Run) propose(ctx context.Context, tester *testerSlot, message string) (Candidate, bool, error) {
	tester.draws++
	want := r.inLane(record{Effect: "propose", Agent: tester.Name(), Draw: tester.draws}, tester.Name())
	rec, replayed, err := r.effect(want, func() (record, error) {
		defer r.begin(ctx, Work{Kind: EvPropose, Agent: tester.Name(), Draw: tester.draws})()
		return metered(tester.Tester, func() (record, error) { return r.performPropose(ctx, tester, message) })
	})
	if err != nil {
		return Candidate{}, false, err
	}
	if replayed {
		if err := tester.Restore(ctx, rec.Checkpoint); err != nil {
			return Candidate{}, false, fmt.Errorf("replay tester %s proposal %d: %w", tester.Name(), tester.draws, err)
		}
	}
	if rec.Proposal == nil || rec.Proposal.None {
		r.emit(ctx, Event{Kind: EvPropose, Agent: tester.Name(), Detail: "nothing more to propose", Spend: spendOf(rec)})
		return Candidate{}, false, r.charge(tester.Name(), rec.Spend)
	}
	c := Candidate{ID: fmt.Sprintf("%s-%d", tester.Name(), tester.draws), Tester: tester.Name(), Proposal: tester.draws, Path: rec.Proposal.Path, Select: rec.Proposal.Select, Content: rec.Proposal.Content}
	r.emit(ctx, Event{Kind: EvPropose, Agent: tester.Name(), Test: c.ID, Spend: spendOf(rec)})
	return c, true, r.charge(tester.Name(), rec.Spend)
}

func (r *Run) performPropose(ctx context.Context, tester *testerSlot, message string) (record, error) {
	p, err := tester.Propose(ctx, Turn{Message: message, Draw: tester.draws})
	if err != nil {
		return record{}, fmt.Errorf("tester %s proposal %d: %w", tester.Name(), tester.draws, err)
	}
	cp, err := tester.Save(ctx)
	if err != nil {
		return record{}, fmt.Errorf("save tester %s: %w", tester.Name(), err)
	}
	return record{Proposal: &p, Checkpoint: cp}, nil
}

// runSuite runs every vetted test against one coder and returns its pass vector.
func (r *Run) runSuite(ctx context.Context, coder *coderSlot) ([]bool, error) {
	tree, err := r.store.Tree(ctx, coder.commit)
	if err != nil {
		return nil, fmt.Errorf("tree of coder %s: %w", coder.Name(), err)
	}
	jobs := make([]ci.Job, len(r.suite))
	for i, test := range r.suite {
		jobs[i] = ci.Job{Coder: coder.Name(), Tree: tree, Test: test.Test()}
	}
	verdicts, err := r.runJudge(ctx, coder.Name(), jobs)
	if err != nil {
		return nil, err
	}
	vector := make([]bool, len(verdicts))
	cells := make([]Cell, len(verdicts))
	passed := 0
	coder.unprepared = ""
	for i, v := range verdicts {
		if v.Outcome == ci.PrepareFailed && coder.unprepared == "" {
			coder.unprepared = v.Output
		}
		vector[i] = v.Passed()
		cells[i] = newCell(coder.Name(), r.suite[i].ID, v)
		if v.Passed() {
			passed++
		}
	}
	r.emit(ctx, Event{Kind: EvSuite, Agent: coder.Name(), Passed: passed, Cells: cells, Detail: accWA(vector)})
	// Most coders passed each vetted test when it was classified: a tampered run of one
	// is the coder's doing.
	r.noteTampered(ctx, coder.Name(), cells)
	return vector, nil
}

// runJudge asks the judge for verdicts: a journalled effect, in the turn of the agent
// named lane when a phase runs, where it joins the phase's batch (batch.go).
func (r *Run) runJudge(ctx context.Context, lane string, jobs []ci.Job) ([]ci.Verdict, error) {
	want := r.inLane(record{Effect: "judge", Agent: jobs[0].Coder, Key: jobsKey(r.cfg.Reruns, jobs)}, lane)
	rec, _, err := r.effect(want, func() (record, error) { return r.judged(ctx, lane, jobs) })
	if err != nil {
		return nil, err
	}
	if len(rec.Verdicts) != len(jobs) {
		return nil, fmt.Errorf("journal entry %d: %d verdicts for %d jobs", rec.Seq, len(rec.Verdicts), len(jobs))
	}
	return rec.Verdicts, r.chargeIn(lane, judgeSpender, rec.Spend)
}

func (r *Run) performJudge(ctx context.Context, jobs []ci.Job) (record, error) {
	verdicts, err := r.judge.Run(ctx, r.cfg.Reruns, jobs)
	if err != nil {
		return record{}, fmt.Errorf("judge: %w", err)
	}
	if len(verdicts) != len(jobs) {
		return record{}, fmt.Errorf("judge: %d verdicts for %d jobs", len(verdicts), len(jobs))
	}
	return record{Verdicts: verdicts}, nil
}

// spendOf is an effect's token spend for its event, when it had one.
func spendOf(rec record) *Spend {
	if rec.Spend.Tokens() == 0 {
		return nil
	}
	// Only tokens: an effect's seconds differ between a run and its resumption.
	return &Spend{PromptTokens: rec.Spend.PromptTokens, CompletionTokens: rec.Spend.CompletionTokens}
}

// save takes a checkpoint. It is not journalled: it costs nothing and a replay redoes it.
func (r *Run) save(ctx context.Context, agent Agent) (Checkpoint, error) {
	cp, err := agent.Save(ctx)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", agent.Name(), err)
	}
	return cp, nil
}

// rollback restores an agent to a checkpoint; a coder's workspace follows.
func (r *Run) rollback(ctx context.Context, agent Agent, cp Checkpoint, where string) error {
	if err := agent.Restore(ctx, cp); err != nil {
		return fmt.Errorf("roll back %s: %w", agent.Name(), err)
	}
	if coder, ok := agent.(*coderSlot); ok {
		commit, err := coder.Workspace(ctx)
		if err != nil {
			return fmt.Errorf("workspace of %s: %w", coder.Name(), err)
		}
		coder.commit = commit
	}
	r.emit(ctx, Event{Kind: EvRollback, Agent: agent.Name(), Detail: where})
	return nil
}

func (r *Run) thank(ctx context.Context, agent Agent, message string) error {
	if err := agent.Tell(ctx, message); err != nil {
		return fmt.Errorf("thank %s: %w", agent.Name(), err)
	}
	r.emit(ctx, Event{Kind: EvThank, Agent: agent.Name()})
	return nil
}

func accWA(vector []bool) string {
	marks := make([]string, len(vector))
	for i, ok := range vector {
		marks[i] = "WA"
		if ok {
			marks[i] = "ACC"
		}
	}
	return strings.Join(marks, " ")
}
