package orchestrate

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
)

// Deps are the run's side effects.
type Deps struct {
	Coders   []Coder
	Testers  []Tester
	Advisors []Advisor // critics, navigators: the protocols other than dixit
	// HumanTests are tests people wrote (the repository's own, the spec's): tdg
	// conditions on them.
	HumanTests []Candidate
	// Hidden are tests no agent may see (bot eval's reference tests): blind's final check
	// runs them and tells the coder only how many pass.
	Hidden   []Candidate
	Judge    ci.Judge
	Store    Store
	Journal  Journal
	Reporter Reporter // optional
	// AfterAppend, when set, is called after each journal append; an error stops the run.
	AfterAppend func(seq int) error
	// Decisions, when set, returns the humans' decisions on this run so far, oldest
	// first; the run takes up those it has not journalled yet when it escalates.
	Decisions func() ([]Decision, error)
	// NewCoder makes the fresh coder named name that replaces the coder replaces (same
	// settings, a new seed); nil when the population cannot replace coders.
	NewCoder func(replaces, name string) (Coder, error)
	// Guard, when set, holds coders to the repository's own tests in ensure_passes.
	Guard Guard
}

// Run is one execution of the Dixit protocol.
type Run struct {
	cfg      config.Settings
	coders   []*coderSlot
	testers  []*testerSlot
	advisors []*advisorSlot
	human    []Candidate
	hidden   []Candidate
	judge    ci.Judge
	store    Store
	reporter Reporter
	journalState

	suite     []Vetted
	proposals []Candidate // every candidate classified, once, in order
	round     int
	events    []Event
	spent     Spend
	spentBy   map[string]Spend

	// found holds the testers' turn's new tests until the round enters them (dixit.go).
	found []Vetted
	// phase is the parallel phase running now, nil between phases (parallel.go).
	phase  *phaseState
	phases int // phases so far: a record's Phase

	// Humans' decisions at escalations (escalation.go).
	decisions func() ([]Decision, error)
	newCoder  func(replaces, name string) (Coder, error)
	guard     Guard
	// retired are the repository's tests the spec changes (most first solutions break
	// them): they guard nothing in this run. nil until the coders' first solutions voted.
	retired   map[string]bool
	decided   []AppliedDecision
	accepted  string   // the coder whose implementation a human accepted
	dropped   []string // vetted tests a human dropped
	replaced  []string // coders a human replaced
	maxRounds int      // max_rounds as configured: what /dixit continue adds
	lastTest  int      // the highest test number given out: numbers are never reused
	crossed   string   // the budget kind a BUDGET_EXHAUSTED stop crossed
}

type coderSlot struct {
	Coder
	draws  int
	solves int
	commit string
	// breaks are the existing tests its tree broke when last checked (Guard).
	breaks []ci.Regression
	// unprepared is the judge's output when its tree's dependencies could not be
	// installed in its last suite run: no test could run, and it is told so.
	unprepared string
}

type advisorSlot struct {
	Advisor
	draws int
}

type testerSlot struct {
	Tester
	draws      int
	hibernated bool
	forceWake  bool // a human asked to wake it (testers.go, revive)
	// While hibernated: the two too-hard tests and the checkpoints taken before each.
	stacked                  [2]Candidate
	beforeTest1, beforeTest2 Checkpoint
}

// New checks the population against the settings and loads the journal.
func New(cfg config.Settings, deps Deps) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	if cfg.Protocol == config.ProtocolCritics && len(deps.Advisors) == 0 {
		return nil, fmt.Errorf("protocol critics needs at least one critic")
	}
	if cfg.Protocol == config.ProtocolBlind && len(deps.Advisors) != 1 {
		return nil, fmt.Errorf("protocol blind needs one test planner (got %d advisors)", len(deps.Advisors))
	}
	if cfg.Protocol == config.ProtocolTDG && len(deps.Advisors) != 1 {
		return nil, fmt.Errorf("protocol tdg needs one navigator (got %d advisors)", len(deps.Advisors))
	}
	if len(deps.Coders) != cfg.Coders || len(deps.Testers) != cfg.Testers {
		return nil, fmt.Errorf("settings ask for %d coders and %d testers, the population has %d and %d",
			cfg.Coders, cfg.Testers, len(deps.Coders), len(deps.Testers))
	}
	r := &Run{cfg: cfg, judge: deps.Judge, store: deps.Store, reporter: deps.Reporter, spentBy: map[string]Spend{}, human: deps.HumanTests, hidden: deps.Hidden,
		decisions: deps.Decisions, newCoder: deps.NewCoder, maxRounds: cfg.MaxRounds, guard: deps.Guard}
	r.journalState = journalState{journal: deps.Journal, afterAppend: deps.AfterAppend}
	seen := map[string]bool{}
	for _, c := range deps.Coders {
		r.coders = append(r.coders, &coderSlot{Coder: c})
		seen[c.Name()] = true
	}
	for _, t := range deps.Testers {
		r.testers = append(r.testers, &testerSlot{Tester: t})
		seen[t.Name()] = true
	}
	for _, a := range deps.Advisors {
		r.advisors = append(r.advisors, &advisorSlot{Advisor: a})
		seen[a.Name()] = true
	}
	if len(seen) != len(deps.Coders)+len(deps.Testers)+len(deps.Advisors) {
		return nil, fmt.Errorf("agent names must be unique across coders, testers and advisors")
	}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

// Execute runs the configured protocol to its end (for dixit, the seed's main, dixit.go);
// crossing a budget ends it too (budgetStop).
func (r *Run) Execute(ctx context.Context) (*Result, error) {
	var res *Result
	var err error
	switch r.cfg.Protocol {
	case config.ProtocolSingle:
		res, err = r.single(ctx)
	case config.ProtocolCritics:
		res, err = r.critics(ctx)
	case config.ProtocolTDG:
		res, err = r.tdg(ctx)
	case config.ProtocolBlind:
		res, err = r.blind(ctx)
	case config.ProtocolDixit, "":
		return r.main(ctx) // it answers its own stops with humans' decisions
	default:
		return nil, fmt.Errorf("protocol %s is not built yet", r.cfg.Protocol)
	}
	s, err := r.budgetStop(ctx, stop{}, err)
	if err != nil || s == (stop{}) {
		return res, err
	}
	return r.escalate(ctx, s.outcome, s.reason)
}
