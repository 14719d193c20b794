package orchestrate

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
)

// Batched judge calls (issue 22). The agents of a phase ask the judge for verdicts at
// about the same step of their turns: the testers classify their first proposals, then
// their second ones; the coders run the suite, then run it again after a fix. Each call
// to Judge.Run costs a workflow run with the Actions judge (minutes of queue, checkout and
// a cold start), so a lane's judge call is held until every running lane of the phase is
// either held too or done, and all held calls go to the judge as one Run: one batch per
// step instead of one per agent.
//
// Verdicts are per job, so each lane gets exactly what a call of its own would give, and
// each lane's judge effect stays its own journal record: the journal, the events and the
// test numbers are those of separate calls. A held lane holds nothing another lane waits
// for (no limiter slot, no lock), so holding it cannot deadlock the phase; a replayed
// judge effect is never held.

// heldJudge is one lane's judge call waiting for its batch, then its answer.
type heldJudge struct {
	lane     *lane
	jobs     []ci.Job
	done     chan struct{} // closed when verdicts, seconds and err are set
	verdicts []ci.Verdict
	seconds  float64 // how long the batch took, without the wait for it
	err      error
}

// judged performs a judge effect: in a phase, in the phase's next batch; outside a
// phase (the protocol's own steps), at once.
func (r *Run) judged(ctx context.Context, lane string, jobs []ci.Job) (record, error) {
	l := r.laneOf(lane)
	if l == nil {
		return metered(nil, func() (record, error) { return r.performJudge(ctx, jobs) })
	}
	return r.phase.inBatch(ctx, l, jobs)
}

// inBatch holds l's judge call until the batch it joins has its verdicts.
func (p *phaseState) inBatch(ctx context.Context, l *lane, jobs []ci.Job) (record, error) {
	call := &heldJudge{lane: l, jobs: jobs, done: make(chan struct{})}
	p.mu.Lock()
	p.held = append(p.held, call)
	l.waiting = true
	p.flushIfReady(ctx)
	p.mu.Unlock()
	select {
	case <-call.done:
	case <-ctx.Done():
		if p.withdraw(call) {
			return record{}, fmt.Errorf("judge: %w", ctx.Err())
		}
		<-call.done // its batch is under way with the same context: it ends soon
	}
	if call.err != nil {
		return record{}, call.err
	}
	return record{Verdicts: call.verdicts, Spend: Spend{Seconds: call.seconds}}, nil
}

// withdraw takes call out of the next batch, if no batch has taken it yet.
func (p *phaseState) withdraw(call *heldJudge) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.held, call)
	if i < 0 {
		return false
	}
	p.held = slices.Delete(p.held, i, i+1)
	call.lane.waiting = false
	return true
}

// flushIfReady sends the held calls to the judge when no lane that could still join
// the batch is at work; p.mu is held.
func (p *phaseState) flushIfReady(ctx context.Context) {
	if len(p.held) == 0 || !p.nobodyElse() || ctx.Err() != nil {
		return // when cancelled, every held call withdraws (inBatch)
	}
	calls := p.held
	p.held = nil
	for _, c := range calls {
		c.lane.waiting = false
	}
	// In agent order, so a batch's jobs do not depend on which lane asked first.
	slices.SortFunc(calls, func(a, b *heldJudge) int { return a.lane.index - b.lane.index })
	go p.r.judgeBatch(ctx, calls)
}

// nobodyElse tells whether every lane is held, done, or cannot start before a held or
// running lane ends; p.mu is held.
func (p *phaseState) nobodyElse() bool {
	for i, l := range p.lanes {
		switch {
		case l.done || l.waiting:
		case l.started || p.couldStart(i):
			return false
		}
	}
	return true
}

// couldStart tells whether lane i, not started yet, is about to: the lanes it waits
// for (mayStart) are done and none of them stopped the phase; p.mu is held.
func (p *phaseState) couldStart(i int) bool {
	if p.cause != nil {
		return false
	}
	for _, before := range p.lanes[:max(0, i-p.width+1)] {
		if !before.done || before.halt || before.err != nil {
			return false
		}
	}
	return true
}

// judgeBatch runs the held calls' jobs in one Judge.Run and hands each call its own
// verdicts, in the order of its jobs.
func (r *Run) judgeBatch(ctx context.Context, calls []*heldJudge) {
	var jobs []ci.Job
	for _, c := range calls {
		jobs = append(jobs, c.jobs...)
	}
	start := time.Now()
	verdicts, err := r.judge.Run(ctx, r.cfg.Reruns, jobs)
	if err == nil && len(verdicts) != len(jobs) {
		err = fmt.Errorf("%d verdicts for %d jobs", len(verdicts), len(jobs))
	}
	seconds := time.Since(start).Seconds()
	for _, c := range calls {
		c.seconds = seconds
		if err != nil {
			c.err = fmt.Errorf("judge: %w", err)
		} else {
			c.verdicts, verdicts = verdicts[:len(c.jobs):len(c.jobs)], verdicts[len(c.jobs):]
		}
		close(c.done)
	}
}
