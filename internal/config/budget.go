package config

import (
	"fmt"
	"time"
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
		return fmt.Errorf("budget.tokens: must not be negative")
	case b.CostUSD < 0:
		return fmt.Errorf("budget.cost_usd: must not be negative")
	case b.WallTime < 0:
		return fmt.Errorf("budget.wall_time: must not be negative")
	}
	return nil
}
