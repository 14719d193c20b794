package orchestrate

import "github.com/dixit-bot/dixit/internal/ci"

// Candidate is a proposed test.
type Candidate struct {
	ID       string `json:"id"`       // <tester>-<draw>: unique in a run
	Tester   string `json:"tester"`   // who proposed it
	Proposal int    `json:"proposal"` // the tester's draw that produced it
	// Path is where the tester put the file ("" for the contract's default place).
	Path string `json:"path,omitempty"`
	// Select are the tests a proposal made as a diff runs (ci.Test.Select).
	Select  []string `json:"select,omitempty"`
	Content []byte   `json:"-"`
}

// Test is the candidate as the judge runs it.
func (c Candidate) Test() ci.Test {
	return ci.Test{ID: c.ID, Path: c.Path, Content: c.Content, Select: c.Select}
}

// Vetted is a test in the suite.
type Vetted struct {
	Candidate
	Number   int      `json:"number"` // its 1-based place in the suite: coders see "test 3"
	Round    int      `json:"round"`
	PassedBy []string `json:"passed_by"` // coders that passed it when it was classified
	FailedBy []string `json:"failed_by"`
}

// CoderState and TesterState describe the agents at the end of a run.
type CoderState struct {
	Name   string `json:"name"`
	Solves int    `json:"solves"`
	Commit string `json:"commit"`
	// Breaks are the repository's own tests its tree broke when they last ran on it.
	Breaks []ci.Regression `json:"breaks,omitempty"`
	// Tampered is the first evidence that one of its jobs changed what the test runner
	// reports: it is out of the pick (tamper.go).
	Tampered *Tamper `json:"tampered,omitempty"`
}

type TesterState struct {
	Name      string `json:"name"`
	State     string `json:"state"` // active | hibernated
	Proposals int    `json:"proposals"`
	// Stacked holds a hibernated tester's two too-hard tests, oldest first.
	Stacked []Candidate `json:"stacked,omitempty"`
}

// Result is what a finished run hands to the reporters.
type Result struct {
	Protocol string `json:"protocol"` // dixit, critics, …
	// Final is the coder whose work a protocol other than dixit accepted ("" if none).
	Final   string   `json:"final,omitempty"`
	Outcome Outcome  `json:"outcome"`
	Reason  string   `json:"reason"`
	Rounds  int      `json:"rounds"`
	Vetted  []Vetted `json:"vetted"`
	// Proposals are all the candidates the testers proposed and the judge classified,
	// vetted or not: the escalation ranks implementations by how they do on all of them.
	Proposals []Candidate   `json:"proposals"`
	Coders    []CoderState  `json:"coders"`
	Testers   []TesterState `json:"testers"`
	Events    []Event       `json:"events"`
	// Spend totals every effect's cost, replayed ones included; SpentBy splits it by
	// agent (the judge's time is under "judge").
	Spend   Spend            `json:"spend"`
	SpentBy map[string]Spend `json:"spent_by"`
	CostUSD float64          `json:"cost_usd"` // estimate from agents.price; 0 when unknown
	// Replayed and Live count the journalled effects fed from the journal and performed now.
	Replayed int `json:"replayed"`
	Live     int `json:"live"`
	// Decisions are the humans' answers to earlier escalations, in order; Accepted the
	// coder whose implementation a human accepted; Standing what a next decision is
	// checked against.
	Decisions []AppliedDecision `json:"decisions,omitempty"`
	Accepted  string            `json:"accepted,omitempty"`
	Standing  Standing          `json:"standing"`
	// Retired are the repository's own tests the spec changes: most coders' first
	// solutions broke them, so they guarded nothing.
	Retired []string `json:"retired_existing,omitempty"`
}
