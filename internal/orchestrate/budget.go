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
func (r *Run) charge(agent string, s Spend) error { return r.chargeIn(agent, agent, s) }

// chargeIn charges spender's spend to the turn of the agent named lane: in a parallel
// phase the lane keeps it until the phase settles, and checks the budget against its
// own view (parallel.go).
func (r *Run) chargeIn(lane, spender string, s Spend) error {
	if l := r.laneOf(lane); l != nil {
		l.charges = append(l.charges, charged{spender, s})
		l.own.add(s)
		view := l.base
		view.add(l.own)
		return r.overBudget(view)
	}
	r.spent.add(s)
	per := r.spentBy[spender]
	per.add(s)
	r.spentBy[spender] = per
	return r.overBudget(r.spent)
}

// overBudget reports the first budget spent crosses.
func (r *Run) overBudget(spent Spend) error {
	b := r.cfg.Budget
	switch {
	case b.Tokens > 0 && spent.Tokens() > b.Tokens:
		return errBudget{BudgetTokens, fmt.Sprintf("%d tokens spent, budget.tokens is %d", spent.Tokens(), b.Tokens)}
	case b.CostUSD > 0 && r.costOf(spent) > b.CostUSD:
		return errBudget{BudgetCost, fmt.Sprintf("about $%.2f spent, budget.cost_usd is $%.2f", r.costOf(spent), b.CostUSD)}
	case b.WallTime > 0 && spent.Seconds > b.WallTime.Seconds():
		return errBudget{BudgetWallTime, fmt.Sprintf("%.0f s spent in agents and the judge, budget.wall_time is %s", spent.Seconds, b.WallTime)}
	}
	return nil
}

// cost estimates dollars from the configured price per million tokens.
func (r *Run) cost() float64 { return r.costOf(r.spent) }

func (r *Run) costOf(s Spend) float64 {
	p := r.cfg.Agents.Price
	return (float64(s.PromptTokens)*p.Input + float64(s.CompletionTokens)*p.Output) / 1e6
}

func asBudget(err error) (errBudget, bool) {
	var b errBudget
	ok := errors.As(err, &b)
	return b, ok
}

// judgeSpender is the judge's key in Result.SpentBy; agent names cannot contain "(".
const judgeSpender = "(judge)"
