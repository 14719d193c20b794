package ghreport

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// GitHub's limits on a check run's actions (the buttons under it).
const (
	maxActions          = 3
	maxActionIdentifier = 20
	maxActionLabel      = 20
	maxActionText       = 40
)

// Actions are the buttons a stopped run's check run offers: the fitting decisions
// (orchestrate.Fitting, most natural first) that need no choice of coder or test and
// whose words fit GitHub's 20 characters, at most three. A button's identifier is the
// decision's words ("continue", "budget rounds 20"): clicking it is the same as writing
// `/dixit <identifier>`. Choosing a coder or a test, or a budget whose amount does not
// fit, stays a comment.
func Actions(s orchestrate.Standing) []*github.CheckRunAction {
	var out []*github.CheckRunAction
	for _, o := range orchestrate.Fitting(s) {
		verb, _, _ := strings.Cut(o.Usage, " ")
		a, ok := action(verb, s)
		if !ok || !fits(a, s) {
			continue
		}
		out = append(out, a)
		if len(out) == maxActions {
			break
		}
	}
	return out
}

// action is the button for a verb at a stop, if the verb can be a button.
func action(verb string, s orchestrate.Standing) (*github.CheckRunAction, bool) {
	switch verb {
	case orchestrate.DecideContinue:
		what := "More rounds, up to max_rounds"
		if s.MaxRounds > 0 {
			what = fmt.Sprintf("Go on for up to %d more rounds", s.MaxRounds)
		}
		return &github.CheckRunAction{Identifier: verb, Label: "Continue", Description: what}, true
	case orchestrate.DecideWake:
		return &github.CheckRunAction{Identifier: verb, Label: "Wake testers", Description: "The sleeping testers propose again"}, true
	case orchestrate.DecideBudget:
		amount, ok := doubled(s)
		if !ok {
			return nil, false // which budget to raise is the human's choice
		}
		return &github.CheckRunAction{
			Identifier:  strings.Join([]string{verb, s.Crossed, amount}, " "),
			Label:       "Raise " + s.Crossed,
			Description: fmt.Sprintf("%s budget to %s, then go on", s.Crossed, amount),
		}, true
	}
	return nil, false
}

// doubled is twice what the run spent of the budget it ran out of, in the words a
// budget decision takes: a raise large enough to matter, small enough to stay a stop.
func doubled(s orchestrate.Standing) (string, bool) {
	switch s.Crossed {
	case orchestrate.BudgetRounds:
		return strconv.Itoa(max(2*s.Rounds, s.Rounds+1)), true
	case orchestrate.BudgetTokens:
		return strconv.Itoa(max(2*s.Tokens, s.Tokens+1)), true
	case orchestrate.BudgetCost:
		return strconv.FormatFloat(math.Ceil(200*s.CostUSD)/100, 'f', -1, 64), s.CostUSD > 0
	case orchestrate.BudgetWallTime:
		d := time.Duration(math.Ceil(2*s.Seconds/60)) * time.Minute
		if d < 100*time.Minute {
			return fmt.Sprintf("%dm", int(d.Minutes())), d > 0
		}
		return fmt.Sprintf("%dh", int(math.Ceil(d.Hours()))), true
	}
	return "", false
}

// fits tells whether a button keeps within GitHub's limits and its decision would be
// taken where the run stands (the same check a `/dixit` comment gets).
func fits(a *github.CheckRunAction, s orchestrate.Standing) bool {
	if len(a.Identifier) > maxActionIdentifier || len([]rune(a.Label)) > maxActionLabel || len([]rune(a.Description)) > maxActionText {
		return false
	}
	words := strings.Fields(a.Identifier)
	d, err := orchestrate.ParseDecision(words[0], words[1:], "", time.Time{})
	return err == nil && orchestrate.Check(d, s) == nil
}

// Offer puts the buttons that fit where the run stopped under its check run, replacing
// any earlier ones; a stop that fits none removes them.
func (p *Publisher) Offer(ctx context.Context, s orchestrate.Standing) error {
	p.mu.Lock()
	id := p.ids.CheckRun
	p.mu.Unlock()
	if id == 0 {
		return nil
	}
	return SetActions(ctx, p.gh, CheckRef{Owner: p.t.Owner, Repo: p.t.Repo, ID: id}, Actions(s))
}

// offerOrLog is Offer at the end of a run: buttons that could not be set cost nothing a
// `/dixit` comment cannot do, so the failure is logged and the run's end stands.
func (p *Publisher) offerOrLog(ctx context.Context, s orchestrate.Standing) {
	if err := p.Offer(ctx, s); err != nil {
		p.log.Warn("ghreport: the check run's buttons were not set; /dixit comments still decide", "github_issue", p.t.Issue, "err", err)
	}
}

// CheckRef names a check run.
type CheckRef struct {
	Owner, Repo string
	ID          int64
}

// SetActions replaces a check run's buttons with actions; none removes them, which
// go-github's UpdateCheckRunOptions cannot say (it omits an empty list).
func SetActions(ctx context.Context, gh *github.Client, cr CheckRef, actions []*github.CheckRunAction) error {
	body := struct {
		Actions []*github.CheckRunAction `json:"actions"`
	}{Actions: append([]*github.CheckRunAction{}, actions...)}
	req, err := gh.NewRequest("PATCH", fmt.Sprintf("repos/%s/%s/check-runs/%d", cr.Owner, cr.Repo, cr.ID), body)
	if err != nil {
		return fmt.Errorf("buttons of check run %d on %s/%s: %w", cr.ID, cr.Owner, cr.Repo, err)
	}
	if _, err := gh.Do(ctx, req, nil); err != nil {
		return fmt.Errorf("buttons of check run %d on %s/%s: %w", cr.ID, cr.Owner, cr.Repo, err)
	}
	return nil
}
