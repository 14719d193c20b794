package ghreport

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
)

var target = Target{Owner: "o", Repo: "r", Issue: 3, HeadSHA: strings.Repeat("a", 40), Run: "o-r-3"}

func events() []orchestrate.Event {
	cells := []orchestrate.Cell{{Coder: "amber", Test: "ivy-1", Outcome: "pass"}, {Coder: "basil", Test: "ivy-1", Outcome: "fail"}}
	return []orchestrate.Event{
		{Kind: orchestrate.EvRound, Round: 1},
		{Kind: orchestrate.EvVet, Round: 1, Test: "ivy-1"},
		{Kind: orchestrate.EvRound, Round: 2},
		{Kind: orchestrate.EvSuite, Round: 2, Agent: "basil", Cells: cells[1:]},
		{Kind: orchestrate.EvEscalate, Round: 2, Outcome: orchestrate.CodersStuck, Detail: "coder basil still fails part of the vetted suite after 3 retries"},
	}
}

func TestOneStatusCommentEditedInPlaceAndACheckRun(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
	state := filepath.Join(t.TempDir(), "github.json")
	p, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber", "basil"}, Testers: []string{"ivy"}, StateFile: state})
	require.NoError(t, err)

	evs := events()
	p.Event(ctx, evs[0])
	comments := srv.State.Comments("o", "r", 3)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0], "round 1")

	// A restart: a new publisher finds the same comment and check run.
	p, err = New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber", "basil"}, Testers: []string{"ivy"}, StateFile: state})
	require.NoError(t, err)
	for _, ev := range evs {
		p.Event(ctx, ev)
	}
	res := &orchestrate.Result{Outcome: orchestrate.CodersStuck, Reason: "coder basil is stuck", Rounds: 2, Vetted: make([]orchestrate.Vetted, 1)}
	require.NoError(t, p.Finish(ctx, res))

	comments = srv.State.Comments("o", "r", 3)
	require.Len(t, comments, 1, "edited in place, never a second comment")
	assert.Contains(t, comments[0], "### Dixit: CODERS_STUCK")
	assert.Contains(t, comments[0], "| basil | WA |")

	var checkRuns int
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/check-runs") {
			checkRuns++
		}
	}
	assert.Equal(t, 1, checkRuns, "one check run for the run")
	cr := srv.State.CheckRun(p.ids.CheckRun)
	assert.Equal(t, "completed", cr["status"])
	assert.Equal(t, "neutral", cr["conclusion"], "an escalation asks a human: never success")
	output, _ := cr["output"].(map[string]any)
	assert.Equal(t, "CODERS_STUCK: 1 vetted test after 2 rounds", output["title"], "counted in words: never \"1 vetted tests\"")
}

func TestAnEarlierCommentIsFoundByItsMarker(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
	first, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "a.json")})
	require.NoError(t, err)
	first.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 1})

	// The state file was lost (another server took the run over): the marker still leads
	// to the comment, and the run's external id to its check run.
	again, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "b.json")})
	require.NoError(t, err)
	assert.Equal(t, first.ids.CheckRun, again.ids.CheckRun, "the same check run, not a second one left in progress")
	other := target
	other.Run = "o-r-4"
	third, err := New(ctx, srv.Client(nil), other, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "c.json")})
	require.NoError(t, err)
	assert.NotEqual(t, first.ids.CheckRun, third.ids.CheckRun, "another run on the same commit has its own")
	again.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 2})
	comments := srv.State.Comments("o", "r", 3)
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0], "round 2")
}

func TestGitHubFailuresDoNotStopTheRun(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
	p, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "s.json")})
	require.NoError(t, err)
	srv.Inject(ghtest.Fault{Method: "POST", Path: "repos/o/r/issues/3/comments", Status: 502})
	p.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 1})
	assert.Empty(t, srv.State.Comments("o", "r", 3))
	p.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 2})
	require.Len(t, srv.State.Comments("o", "r", 3), 1, "the next round publishes")
}

// TestACommentWhoseAnswerWasLostIsNotCreatedTwice: GitHub creates the status comment
// but the answer never arrives; the next round finds the comment by its marker and edits
// it instead of creating a second one.
func TestACommentWhoseAnswerWasLostIsNotCreatedTwice(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
	p, err := New(ctx, srv.Client(nil), target, Options{Coders: []string{"amber"}, StateFile: filepath.Join(t.TempDir(), "s.json")})
	require.NoError(t, err)
	srv.Inject(ghtest.Fault{Method: "POST", Path: "repos/o/r/issues/3/comments", Lost: true})
	p.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 1})
	require.Len(t, srv.State.Comments("o", "r", 3), 1, "GitHub created it")
	p.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 2})
	comments := srv.State.Comments("o", "r", 3)
	require.Len(t, comments, 1, "found, not created again")
	assert.Contains(t, comments[0], "round 2")
}

// TestAServerWithoutSandboxSaysSoEverywhere: with sandbox: none, the status comment (after
// its marker, so a restart still finds it) and the check run, from its start to its
// conclusion, carry the warning; a sandboxed server's never do.
func TestAServerWithoutSandboxSaysSoEverywhere(t *testing.T) {
	for _, unsandboxed := range []bool{true, false} {
		t.Run(fmt.Sprintf("unsandboxed=%v", unsandboxed), func(t *testing.T) {
			ctx := context.Background()
			srv := ghtest.NewServer(t)
			srv.State.AddIssue("o", "r", 3, "Add Compare", "spec")
			tg := target
			tg.Unsandboxed = unsandboxed
			state := filepath.Join(t.TempDir(), "github.json")
			p, err := New(ctx, srv.Client(nil), tg, Options{Coders: []string{"amber"}, Testers: []string{"ivy"}, StateFile: state})
			require.NoError(t, err)
			started := summary(srv.State.CheckRun(p.ids.CheckRun))
			p.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 1})
			comment := srv.State.Comments("o", "r", 3)[0]

			// A restart edits the same comment: the marker is still its first line.
			p, err = New(ctx, srv.Client(nil), tg, Options{Coders: []string{"amber"}, Testers: []string{"ivy"}, StateFile: filepath.Join(t.TempDir(), "lost.json")})
			require.NoError(t, err)
			require.NoError(t, p.Complete(ctx, "failure", "Preflight failed", "The base revision does not build.", ""))
			comments := srv.State.Comments("o", "r", 3)
			require.Len(t, comments, 1)
			done := summary(srv.State.CheckRun(p.ids.CheckRun))

			for what, text := range map[string]string{"status comment": comment, "check run at its start": started, "check run at its end": done} {
				if unsandboxed {
					assert.Equal(t, 1, strings.Count(text, NoSandbox), "%s:\n%s", what, text)
				} else {
					assert.NotContains(t, text, "without a sandbox", what)
				}
			}
			assert.True(t, strings.HasPrefix(comments[0], report.Marker(tg.Run)+"\n"), comments[0])
			assert.Contains(t, done, "The base revision does not build.")
		})
	}
}

// summary is a stored check run's output summary.
func summary(cr map[string]any) string {
	out, _ := cr["output"].(map[string]any)
	s, _ := out["summary"].(string)
	return s
}
