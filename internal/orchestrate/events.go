package orchestrate

import (
	"context"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// Event kinds, in the words of the protocol.
const (
	EvSolve     = "solve"     // a coder produced a solution
	EvPropose   = "propose"   // a tester proposed a test (or had none)
	EvClassify  = "classify"  // a candidate was run against every coder
	EvSuite     = "suite"     // a coder was run against the vetted suite
	EvVet       = "vet"       // a test entered the vetted suite
	EvThank     = "thank"     // an agent was thanked
	EvRollback  = "rollback"  // an agent was rolled back to a checkpoint
	EvHibernate = "hibernate" // a tester went to sleep with two stacked tests
	EvRevive    = "revive"    // a hibernated tester woke up
	EvRound     = "round"     // a round began
	EvEscalate  = "escalate"  // the run stopped for a human
	EvReview    = "review"    // a critic reviewed a coder's work
	EvOwnTests  = "own-tests" // a coder's own tests were run
	EvPlan      = "plan"      // a test plan was written from the description alone
	EvHidden    = "hidden"    // the hidden tests were run (blind's final check)
	EvDecide    = "decide"    // a human answered an escalation
	// EvExisting: a coder's tree was run against the repository's own tests that passed
	// on the base (the regression set); Detail lists those it breaks.
	EvExisting = "existing-tests"
	// EvTampered: a coder's job came out tampered (tamper.go) and the coder is to blame;
	// Coder names it, Test the test, Detail the judge's evidence. Agent is whose turn it was.
	EvTampered = "tampered"
)

// Cell is one verdict in a classification or a suite run.
type Cell struct {
	Coder   string `json:"coder"`
	Test    string `json:"test"`
	Outcome string `json:"outcome"`
	Runs    int    `json:"runs"`
	// Output is the tail of a failing cell's build or run output, so a reader of the
	// journal, the report or summary.json sees why it failed.
	Output string `json:"output,omitempty"`
}

// cellOutputLimit bounds a cell's output: enough for a compiler error or a traceback.
const cellOutputLimit = 2048

// newCell records one verdict; a failing one keeps the tail of its output.
func newCell(coder, test string, v ci.Verdict) Cell {
	c := Cell{Coder: coder, Test: test, Outcome: string(v.Outcome), Runs: v.Runs}
	if !v.Passed() {
		c.Output = tail(v.Output, cellOutputLimit)
	}
	return c
}

// tail keeps the last limit bytes of s, cut at a line start when one is near.
func tail(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	s = s[len(s)-limit:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < limit/4 {
		s = s[i+1:]
	}
	return "…\n" + s
}

// Event is one step of the protocol. Replayed events are identical to the ones the first
// run produced; only the Replayed flag tells them apart.
type Event struct {
	Seq      int     `json:"seq"`
	Round    int     `json:"round"`
	Kind     string  `json:"kind"`
	Agent    string  `json:"agent,omitempty"`
	Test     string  `json:"test,omitempty"`
	Class    Class   `json:"class,omitempty"`
	Passed   int     `json:"passed,omitempty"`
	Cells    []Cell  `json:"cells,omitempty"`
	Suite    int     `json:"suite"` // vetted tests at the time
	Detail   string  `json:"detail,omitempty"`
	Coder    string  `json:"coder,omitempty"` // decide: the coder replaced or accepted; tampered: the coder
	Outcome  Outcome `json:"outcome,omitempty"`
	Spend    *Spend  `json:"spend,omitempty"` // tokens a solve or proposal cost
	Replayed bool    `json:"-"`
}

// Work is live work about to begin: an effect the journal does not hold yet (a coder's
// solve, a tester's proposal, an advisor's answer). It is not an event of the run: it is
// neither journalled nor replayed, and only a Reporter that is also a Watcher hears of it.
type Work struct {
	Kind  string // EvSolve, EvPropose or EvAnswer
	Agent string
	Draw  int // the agent's request number, as in Turn
	// Place and Of say which coder solves, from 1, among how many (EvSolve only).
	Place, Of int
}

// EvAnswer is the Kind of an advisor's Work; no Event has it.
const EvAnswer = "answer"

// Watcher is told when live work begins, so a progress display can say what runs while
// nothing else happens for minutes. The function Begin returns is called when the work is
// over, however it went. The agents of a phase work at once: Begin and the functions it
// returns are called from several goroutines.
type Watcher interface {
	Begin(ctx context.Context, w Work) (end func())
}

// begin tells the reporter, if it watches, that w begins.
func (r *Run) begin(ctx context.Context, w Work) (end func()) {
	if watcher, ok := r.reporter.(Watcher); ok {
		return watcher.Begin(ctx, w)
	}
	return func() {}
}

// emit reports ev. In a parallel phase an agent's events wait until the agents before
// it are done (parallel.go), so the run's events come in the same order however the
// agents' work interleaved.
func (r *Run) emit(ctx context.Context, ev Event) {
	ev.Round = r.round
	ev.Suite = len(r.suite)
	if l := r.laneOf(ev.Agent); l != nil {
		ev.Replayed = r.laneReplaying(l.name)
		r.phase.emit(ctx, l, ev)
		return
	}
	ev.Replayed = r.replaying()
	r.emitNow(ctx, ev)
}

// emitNow numbers ev and tells the reporter; r.mu is held or no phase runs.
func (r *Run) emitNow(ctx context.Context, ev Event) {
	ev.Seq = len(r.events) + 1
	r.events = append(r.events, ev)
	if r.reporter != nil {
		r.reporter.Event(ctx, ev)
	}
}
