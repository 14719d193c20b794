package config

import (
	"time"

	"github.com/dixit-bot/dixit/internal/strictyaml"
)

// Budget caps what a run may spend; zero means no cap. Crossing any cap ends the run with
// BUDGET_EXHAUSTED, keeping everything done so far.
type Budget struct {
	Tokens   int           `json:"tokens" yaml:"tokens"`
	CostUSD  float64       `json:"cost_usd" yaml:"cost_usd"`
	WallTime time.Duration `json:"wall_time" yaml:"wall_time"` // time spent in agents and the judge
}

func (b Budget) validate() error {
	switch {
	case b.Tokens < 0:
		return strictyaml.Errorf("budget.tokens", "must be 0 (no cap) or more (got %d)", b.Tokens)
	case b.CostUSD < 0:
		return strictyaml.Errorf("budget.cost_usd", "must be 0 (no cap) or more (got %g)", b.CostUSD)
	case b.WallTime < 0:
		return strictyaml.Errorf("budget.wall_time", "must be 0 (no cap) or more (got %s)", b.WallTime)
	}
	return nil
}
