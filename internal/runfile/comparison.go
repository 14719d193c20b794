package runfile

import (
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/tamperscan"
)

// Comparison is how the implementations differ: in their code (diff stats) and in their
// behaviour (differential testing), and which one the pull request is built from.
type Comparison struct {
	Touched []CoderDiff `json:"touched"` // each coder's change from the base revision
	Pairs   []PairDiff  `json:"pairs"`   // each pair of coders
	// Differential is the probe's answers compared across the passing implementations;
	// nil when no probe ran, and ProbeNote says why.
	Differential *differential.Report `json:"differential,omitempty"`
	ProbeBy      string               `json:"probe_by,omitempty"`
	ProbeNote    string               `json:"probe_note,omitempty"`
	// Dual is each coder's CodeT dual-agreement score over every test the testers
	// proposed (differential.DualAgreement), run against the final implementations.
	Dual      map[string]int `json:"dual_agreement,omitempty"`
	DualTests int            `json:"dual_tests,omitempty"`
	// Proposed is how many of those DualTests tests each coder passes.
	Proposed map[string]int `json:"proposed_passed,omitempty"`
	// PickRule is the rule the run's settings name (pick.Named); "" is the default.
	PickRule string `json:"pick_rule,omitempty"`
	Pick     Pick   `json:"pick"`
}

// CoderDiff is the files a coder changed from the base revision.
type CoderDiff struct {
	Coder   string              `json:"coder"`
	Files   []gitstate.FileStat `json:"files"`
	Added   int                 `json:"added"`
	Deleted int                 `json:"deleted"`
	// OwnTests counts the lines of Added and Deleted in the coder's own test files (the
	// judge leaves them out): the size tie-break does not count them, so that a coder
	// that writes tests is not the one that loses it.
	OwnTests int `json:"own_tests,omitempty"`
	// Scan is the tamper scan of the lines it added to files the judge runs: the places
	// that reach into the test runner or the process. Evidence for a human, never a
	// verdict; nil in a summary written before the scan existed.
	Scan *tamperscan.Scan `json:"tamper_scan,omitempty"`
}

// Finding is one place the tamper scan found, named here so that readers of the
// summary need not import the scan.
type Finding = tamperscan.Finding

// PairDiff is how far apart two implementations are.
type PairDiff struct {
	A       string `json:"a"`
	B       string `json:"b"`
	Files   int    `json:"files"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
}

// Pick is the implementation the escalation pull request is built from.
type Pick struct {
	Coder      string   `json:"coder"`
	Agreed     bool     `json:"agreed"`     // it passes every vetted test
	Candidates []string `json:"candidates"` // every coder that does
	Why        string   `json:"why"`
}
