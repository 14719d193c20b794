package ghreport

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

func identifiers(actions []*github.CheckRunAction) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Identifier)
	}
	return out
}

func TestButtonsAreTheFittingDecisionsThatNeedNoChoice(t *testing.T) {
	stuck := orchestrate.Standing{Outcome: orchestrate.CodersStuck, Rounds: 4, MaxRounds: 10, Coders: []string{"amber", "basil"},
		Vetted: []orchestrate.SuiteEntry{{ID: "ivy-1", Number: 1}}, Replaceable: true}
	for _, c := range []struct {
		name string
		s    orchestrate.Standing
		want []string
	}{
		{"coders stuck: drop, replace and accept name a test or a coder", stuck, []string{"continue"}},
		{"testers asleep", orchestrate.Standing{Outcome: orchestrate.AllTestersHibernated, Rounds: 3, Coders: []string{"amber"}, Hibernated: []string{"ivy"}},
			[]string{"wake", "continue"}},
		{"out of rounds: twice the rounds spent", orchestrate.Standing{Outcome: orchestrate.BudgetExhausted, Crossed: orchestrate.BudgetRounds, Rounds: 10, Coders: []string{"amber"}},
			[]string{"budget rounds 20", "continue"}},
		{"out of money: more rounds would cross it again", orchestrate.Standing{Outcome: orchestrate.BudgetExhausted, Crossed: orchestrate.BudgetCost, CostUSD: 4.205, Coders: []string{"amber"}},
			[]string{"budget cost 8.41"}},
		{"out of time", orchestrate.Standing{Outcome: orchestrate.BudgetExhausted, Crossed: orchestrate.BudgetWallTime, Seconds: 3 * 3600, Coders: []string{"amber"}},
			[]string{"budget wall_time 6h"}},
		{"a token budget whose words are over 20 characters stays a comment", orchestrate.Standing{Outcome: orchestrate.BudgetExhausted, Crossed: orchestrate.BudgetTokens, Tokens: 3_000_000, Coders: []string{"amber"}},
			nil},
		{"an accepted run takes no decision", orchestrate.Standing{Outcome: orchestrate.CodersStuck, Accepted: "amber", Coders: []string{"amber"}}, nil},
		{"another protocol takes no decision", orchestrate.Standing{Protocol: "critics", Outcome: orchestrate.Accepted, Coders: []string{"amber"}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, identifiers(Actions(c.s)))
		})
	}
}

func TestEveryButtonKeepsWithinGitHubsLimits(t *testing.T) {
	for _, r := range orchestrate.Reasons() {
		for _, crossed := range []string{"", orchestrate.BudgetRounds, orchestrate.BudgetTokens, orchestrate.BudgetCost, orchestrate.BudgetWallTime} {
			s := orchestrate.Standing{Outcome: r.Outcome, Crossed: crossed, Rounds: 999, MaxRounds: 1000, Tokens: 99_999, CostUSD: 9_999.99,
				Seconds: 3 * 24 * 3600, Coders: []string{"amber"}, Hibernated: []string{"ivy"}}
			actions := Actions(s)
			assert.LessOrEqual(t, len(actions), 3, "%s/%s", r.Outcome, crossed)
			for _, a := range actions {
				assert.LessOrEqual(t, len(a.Identifier), 20, a.Identifier)
				assert.LessOrEqual(t, len([]rune(a.Label)), 20, a.Label)
				assert.LessOrEqual(t, len([]rune(a.Description)), 40, a.Description)
				assert.NotEmpty(t, a.Label)
			}
		}
	}
}

// lastActions is the actions list of the last PATCH of a check run the fake received.
func lastActions(t *testing.T, srv *ghtest.Server) []map[string]string {
	t.Helper()
	for i := len(srv.Requests()) - 1; i >= 0; i-- {
		r := srv.Requests()[i]
		if r.Method != "PATCH" || !strings.Contains(r.Path, "/check-runs/") {
			continue
		}
		var body struct {
			Actions *[]map[string]string `json:"actions"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &body))
		if body.Actions != nil {
			return *body.Actions
		}
	}
	t.Fatal("no check run's buttons were set")
	return nil
}

func TestAStoppedRunsCheckRunOffersItsButtonsAndALaterStopReplacesThem(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t) // checks each request against GitHub's description: at most 3 actions, 20/20/40 characters
	srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
	p, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "github.json")})
	require.NoError(t, err)

	asleep := orchestrate.Standing{Outcome: orchestrate.AllTestersHibernated, Rounds: 3, MaxRounds: 10, Coders: []string{"amber"}, Hibernated: []string{"ivy"}}
	require.NoError(t, p.Offer(ctx, asleep))
	got := lastActions(t, srv)
	require.Len(t, got, 2)
	assert.Equal(t, map[string]string{"identifier": "wake", "label": "Wake testers", "description": "The sleeping testers propose again"}, got[0])
	assert.Equal(t, "continue", got[1]["identifier"])

	require.NoError(t, p.Offer(ctx, orchestrate.Standing{Outcome: orchestrate.CodersStuck, Accepted: "amber", Coders: []string{"amber"}}))
	assert.Empty(t, lastActions(t, srv), "a stop that fits no button removes the old ones")
}

func TestFinishOffersTheButtonsOfTheStop(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
	p, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "github.json")})
	require.NoError(t, err)
	res := &orchestrate.Result{Outcome: orchestrate.BudgetExhausted, Reason: "max_rounds reached", Rounds: 10,
		Standing: orchestrate.Standing{Outcome: orchestrate.BudgetExhausted, Crossed: orchestrate.BudgetRounds, Rounds: 10, MaxRounds: 10, Coders: []string{"amber"}}}
	require.NoError(t, p.Finish(ctx, res))
	got := lastActions(t, srv)
	require.Len(t, got, 2)
	assert.Equal(t, map[string]string{"identifier": "budget rounds 20", "label": "Raise rounds", "description": "rounds budget to 20, then go on"}, got[0])
	assert.Equal(t, "continue", got[1]["identifier"])
	assert.Equal(t, "completed", srv.State.CheckRun(p.ids.CheckRun)["status"])
}
