package orchestrate

import (
	"errors"
	"fmt"
	"time"
)

// Spend is what effects cost: model tokens, and time spent in agents and the judge.
type Spend struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Seconds          float64 `json:"seconds"`
}

func (s *Spend) add(o Spend) {
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.Seconds += o.Seconds
}

// Tokens is the total token count.
func (s Spend) Tokens() int { return s.PromptTokens + s.CompletionTokens }

// Metered is implemented by agents that know what their model replies cost so far.
type Metered interface {
	Spent() (promptTokens, completionTokens int)
}

// errBudget unwinds the protocol when a budget is crossed; Execute turns it into the
// BUDGET_EXHAUSTED escalation.
type errBudget struct{ kind, what string }

func (e errBudget) Error() string { return "budget exhausted: " + e.what }

// metered runs perform and measures what it cost the agent (tokens) and the clock.
func metered(agent any, perform func() (record, error)) (record, error) {
	start := time.Now()
	var p0, c0 int
	m, ok := agent.(Metered)
	if ok {
		p0, c0 = m.Spent()
	}
	rec, err := perform()
	if err != nil {
		return rec, err
	}
	rec.Spend.Seconds = time.Since(start).Seconds()
	if ok {
		p1, c1 := m.Spent()
		rec.Spend.PromptTokens, rec.Spend.CompletionTokens = p1-p0, c1-c0
	}
	return rec, nil
}

// charge adds an effect's recorded spend (live or replayed alike, so a resumed run
// crosses its budget at the same point) and reports a crossed budget.
func (r *Run) charge(agent string, s Spend) error {
	r.spent.add(s)
	per := r.spentBy[agent]
	per.add(s)
	r.spentBy[agent] = per
	b := r.cfg.Budget
	switch {
	case b.Tokens > 0 && r.spent.Tokens() > b.Tokens:
		return errBudget{BudgetTokens, fmt.Sprintf("%d tokens spent, budget.tokens is %d", r.spent.Tokens(), b.Tokens)}
	case b.CostUSD > 0 && r.cost() > b.CostUSD:
		return errBudget{BudgetCost, fmt.Sprintf("about $%.2f spent, budget.cost_usd is $%.2f", r.cost(), b.CostUSD)}
	case b.WallTime > 0 && r.spent.Seconds > b.WallTime.Seconds():
		return errBudget{BudgetWallTime, fmt.Sprintf("%.0f s spent in agents and the judge, budget.wall_time is %s", r.spent.Seconds, b.WallTime)}
	}
	return nil
}

// cost estimates dollars from the configured price per million tokens.
func (r *Run) cost() float64 {
	p := r.cfg.Agents.Price
	return (float64(r.spent.PromptTokens)*p.Input + float64(r.spent.CompletionTokens)*p.Output) / 1e6
}

func asBudget(err error) (errBudget, bool) {
	var b errBudget
	ok := errors.As(err, &b)
	return b, ok
}

// judgeSpender is the judge's key in Result.SpentBy; agent names cannot contain "(".
const judgeSpender = "(judge)"
