package runfile

import (
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Evidence backs an escalation's one-sentence reason with what the run observed, so a
// human can check the reason instead of trusting it. Only the part that fits the
// outcome is set.
type Evidence struct {
	Stuck     *StuckCoder    `json:"stuck,omitempty"`     // CODERS_STUCK
	Stacked   []StackedTest  `json:"stacked,omitempty"`   // ALL_TESTERS_HIBERNATED
	Exhausted []RoundClasses `json:"exhausted,omitempty"` // TESTERS_EXHAUSTED: the last rounds
	Budget    string         `json:"budget,omitempty"`    // BUDGET_EXHAUSTED: what ran out
	// The other protocols: the last check of the coder's own tests and the last reviews.
	OwnTests []orchestrate.Cell `json:"own_tests,omitempty"`
	Reviews  []Review           `json:"reviews,omitempty"`
}

// Review is a critic's last verdict.
type Review struct {
	Critic string `json:"critic"`
	Said   string `json:"said"`
}

// StuckCoder is the coder that could not catch up, and its verdict vector over the
// vetted suite at each attempt of its last round.
type StuckCoder struct {
	Coder    string               `json:"coder"`
	Failing  []string             `json:"failing"` // tests its last attempt failed
	Attempts [][]orchestrate.Cell `json:"attempts"`
}

// StackedTest is a hibernated tester's too-hard test and how many coders passed it the
// last time it was run.
type StackedTest struct {
	Tester string `json:"tester"`
	Test   string `json:"test"`
	Passed int    `json:"passed"`
	Coders int    `json:"coders"`
	Round  int    `json:"round"` // of that last classification
}

// RoundClasses counts a round's proposals by what became of them.
type RoundClasses struct {
	Round   int `json:"round"`
	TooWeak int `json:"too_weak"`
	TooHard int `json:"too_hard"`
	Ideal   int `json:"ideal"`
	None    int `json:"none"` // a tester had nothing more to propose
}
