package orchestrate

import (
	"context"
	"sync"
)

// A phase is one turn of every agent of a kind: the coders' first solves, their
// ensure_passes, the testers' propose_test or attempt_revival. Agents of a phase never
// see each other's work (seed 000), so their turns run at once, at most parallel_agents
// of them. What the turns leave behind (events, spend, proposals, tests found) is taken
// in agent order, so that nothing a reader sees depends on timing: with parallel_agents
// 1 a phase is the seed's loop, one agent after the other.
//
// Budgets stay deterministic: an agent's turn checks the budget against what the run had
// spent when the phase began, plus what the agents that finished before it could start
// spent (with parallel_agents 1, every agent before it: the seed's rule), plus its own.
// An agent that crosses a budget, or a coder stuck on the suite, ends the phase for the
// agents not started yet; those already running finish their turn. At the end of the
// phase the run is charged everything, in agent order.

// lane is one agent's turn in a phase.
type lane struct {
	name      string
	index     int
	base      Spend // what the run had spent, for this lane's budget checks
	own       Spend // what its effects cost, the judge's included
	charges   []charged
	proposals []Candidate
	events    []Event // held until every lane before it is done
	started   bool    // its turn began
	done      bool
	waiting   bool  // its judge call is held for the phase's next batch (batch.go)
	halt      bool  // its turn ends the phase for lanes not started yet
	err       error // how its turn failed
	finished  chan struct{}
}

type charged struct {
	spender string
	spend   Spend
}

// phaseState is the phase that runs now; r.phase is nil between phases.
type phaseState struct {
	r      *Run
	number int // the run's phases so far, this one included
	width  int
	lanes  []*lane
	byName map[string]*lane

	mu        sync.Mutex   // guards the lanes' events and states, streaming, cause, held
	streaming int          // the lane whose events go straight to the reporter
	cause     error        // the first error that was not a budget's: why the phase failed
	held      []*heldJudge // judge calls waiting for the next batch (batch.go)
}

// laneOf is the lane of the agent named name in the running phase, or nil.
func (r *Run) laneOf(name string) *lane {
	if r.phase == nil || name == "" {
		return nil
	}
	return r.phase.byName[name]
}

// inLane marks an effect asked for in agent's turn of a phase with its lane.
func (r *Run) inLane(want record, agent string) record {
	if l := r.laneOf(agent); l != nil {
		want.Lane, want.Width, want.Phase = l.name, r.phase.width, r.phase.number
	}
	return want
}

// parallel runs turn for every agent named in names, in a phase. turn reports halt when
// the seed's loop would not go on to the next agent (a budget crossed, a coder stuck).
func (r *Run) parallel(ctx context.Context, names []string, turn func(ctx context.Context, i int) (halt bool, err error)) error {
	if len(names) == 0 {
		return nil
	}
	r.phases++
	p := &phaseState{r: r, number: r.phases, width: r.phaseWidth(len(names)), byName: map[string]*lane{}}
	for i, name := range names {
		l := &lane{name: name, index: i, finished: make(chan struct{})}
		p.lanes = append(p.lanes, l)
		p.byName[name] = l
	}
	r.phase = p
	defer func() {
		r.phase = nil
		r.setLegacy(false)
		r.setFailing(nil)
	}()
	var wg sync.WaitGroup
	started := 0
	for i, l := range p.lanes {
		if !p.mayStart(ctx, i) {
			break
		}
		l.base = r.spent
		for _, before := range p.lanes[:max(0, i-p.width+1)] {
			l.base.add(before.own)
		}
		started++
		p.start(l)
		wg.Add(1)
		go func() {
			defer wg.Done()
			halt, err := turn(ctx, i)
			p.finish(ctx, l, halt, err)
			if err != nil && !isBudget(err) {
				// The run fails: the other agents start nothing new, but what they are
				// doing finishes and is journalled, so a resumed run does not pay for it.
				r.setFailing(err)
			}
		}()
	}
	for _, l := range p.lanes[started:] {
		p.finish(ctx, l, false, nil)
	}
	wg.Wait()
	return r.settle(p, p.lanes[:started])
}

// phaseWidth is how many agents of a phase may run at once: parallel_agents (every
// agent when 0), or what the journal recorded for the phase when it resumes one. A
// phase recorded before phases ran in parallel replays one agent after the other.
func (r *Run) phaseWidth(agents int) int {
	if rec, ok := r.peek(); ok {
		if rec.Lane == "" {
			r.setLegacy(true)
			return 1
		}
		if rec.Width > 0 {
			return rec.Width
		}
	}
	w := r.cfg.ParallelAgents
	if w <= 0 || w > agents {
		w = agents
	}
	return w
}

// mayStart waits until every lane that must end before lane i starts has ended, and
// tells whether i may run: none of them halted or failed.
func (p *phaseState) mayStart(ctx context.Context, i int) bool {
	for _, before := range p.lanes[:max(0, i-p.width+1)] {
		<-before.finished
		if before.halt || before.err != nil {
			return false
		}
	}
	return ctx.Err() == nil && p.failed() == nil
}

func (p *phaseState) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cause
}

// finish marks l done and lets the events of the lanes after it through.
func (p *phaseState) finish(ctx context.Context, l *lane, halt bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.halt, l.err, l.done = halt || isBudget(err), err, true
	if err != nil && !isBudget(err) && p.cause == nil {
		p.cause = err
	}
	close(l.finished)
	p.advance(ctx)
	p.flushIfReady(ctx) // the lanes still waiting may be all that is left
}

// start marks l's turn as begun: a batch waits for it from now on.
func (p *phaseState) start(l *lane) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.started = true
}

// emit reports ev of lane l now if every lane before it is done, or holds it till then.
func (p *phaseState) emit(ctx context.Context, l *lane, ev Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.events = append(l.events, ev)
	p.advance(ctx)
}

// advance reports the held events of the streaming lane and moves past lanes that are
// done; p.mu is held.
func (p *phaseState) advance(ctx context.Context) {
	for p.streaming < len(p.lanes) {
		l := p.lanes[p.streaming]
		for _, ev := range l.events {
			p.r.emitNow(ctx, ev)
		}
		l.events = nil
		if !l.done {
			return
		}
		p.streaming++
	}
}

// settle charges the run what the lanes spent and takes their proposals, in agent
// order, and returns why the phase failed: an error (the first to happen, the others
// follow from it), else the first crossed budget in agent order, else the run's budget
// if the phase as a whole crossed it.
func (r *Run) settle(p *phaseState, ran []*lane) error {
	var crossed error
	for _, l := range ran {
		for _, c := range l.charges {
			r.spent.add(c.spend)
			per := r.spentBy[c.spender]
			per.add(c.spend)
			r.spentBy[c.spender] = per
		}
		r.proposals = append(r.proposals, l.proposals...)
		if crossed == nil && isBudget(l.err) {
			crossed = l.err
		}
	}
	if p.cause != nil {
		return p.cause
	}
	if crossed != nil {
		return crossed
	}
	return r.overBudget(r.spent)
}

func isBudget(err error) bool {
	_, ok := asBudget(err)
	return ok
}
