package report

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// tamperedRun is a run's summary where dune passes the whole suite but one of its jobs
// came out tampered, and no other coder passes every vetted test.
func tamperedRun() runfile.Summary {
	evidence := "run 1 of 20: tampered: a check of the judge's own that must fail (TestParseLineEmpty41) was reported as pass: something in the test's process changes what the runner reports"
	suite := func(coder string, passed bool) orchestrate.Event {
		outcome, n := "fail", 0
		if passed {
			outcome, n = "pass", 1
		}
		return orchestrate.Event{Kind: orchestrate.EvSuite, Agent: coder, Passed: n, Cells: []orchestrate.Cell{{Coder: coder, Test: "ivy-1", Outcome: outcome}}}
	}
	return runfile.Summary{
		Run: "r1", Protocol: "dixit", Outcome: orchestrate.CodersStuck, Reason: "coder amber still fails part of the vetted suite after 3 retries",
		Vetted: []runfile.VettedTest{{ID: "ivy-1", Number: 1, Tester: "ivy", PassedBy: []string{"dune"}, FailedBy: []string{"amber", "basil"}}},
		Coders: []runfile.Coder{{Name: "amber"}, {Name: "basil"}, {Name: "dune", Tampered: &orchestrate.Tamper{Test: "jun-2", Evidence: evidence}}},
		Events: []orchestrate.Event{
			suite("amber", false), suite("basil", false), suite("dune", true),
			{Kind: orchestrate.EvTampered, Agent: "jun", Coder: "dune", Test: "jun-2", Detail: evidence},
		},
	}
}

// A tampered coder is out: not in the consensus, never picked (not even as CodeT's pick
// when no coder passes the suite), named in the report and the pull request body with
// the judge's evidence, and in the status comment.
func TestATamperedCoderIsOutAndNamed(t *testing.T) {
	s := tamperedRun()
	assert.Empty(t, Consensus(s), "dune passes every vetted test but tampered")
	c := runfile.Comparison{Dual: map[string]int{"dune": 9, "amber": 1}, DualTests: 2}
	p := Choose(s, c)
	assert.Equal(t, "amber", p.Coder, "the best of the others, not dune: %s", p.Why)
	assert.Empty(t, p.Candidates)
	assert.NotContains(t, p.Why, "dune")

	res := &orchestrate.Result{Outcome: s.Outcome, Vetted: []orchestrate.Vetted{{Candidate: orchestrate.Candidate{ID: "ivy-1", Tester: "ivy"}, Number: 1}}}
	for _, md := range []string{Markdown(s, res), Render(s, res, Options{Limit: PRLimit, Decide: "/dixit "})} {
		assert.Contains(t, md, "## Tampered: 1 coder\n")
		assert.Contains(t, md, "| dune | `jun-2` | `run 1 of 20: tampered: a check of the judge's own that must fail (TestParseLineEmpty41)")
		assert.Contains(t, md, "no tampered coder is a candidate for the pick")
		assert.Contains(t, md, "| dune · **tampered** | 0 |", "the agents table marks it too")
	}
	assert.Empty(t, tamperedSection(runfile.Summary{Run: "r2", Coders: []runfile.Coder{{Name: "amber"}}}))

	st := NewStatus("r1", []string{"amber", "basil", "dune"}, []string{"ivy", "jun"})
	for _, ev := range s.Events {
		st.Event(context.Background(), ev)
	}
	md := st.Markdown()
	assert.Contains(t, md, "| dune · **tampered** (test jun-2): no vote, never picked | ACC |")
	assert.Contains(t, md, "| amber | WA |")

	line := Line(s.Events[3])
	assert.True(t, strings.HasPrefix(line, "  ⚠ dune tampered with the test runner on jun-2: run 1 of 20: tampered: "), line)
}

// The progress line of a classification says how many coders tampered and, when most
// did, that the test was rejected for it.
func TestClassifyLineCountsTamperedCoders(t *testing.T) {
	cells := func(outcomes ...string) []orchestrate.Cell {
		var out []orchestrate.Cell
		for i, o := range outcomes {
			out = append(out, orchestrate.Cell{Coder: string(rune('a' + i)), Outcome: o})
		}
		return out
	}
	one := Line(orchestrate.Event{Kind: orchestrate.EvClassify, Agent: "ivy", Test: "ivy-1", Class: orchestrate.Ideal, Passed: 2,
		Cells: cells("pass", "pass", "fail", "tampered")})
	assert.Contains(t, one, "2/3 pass (1 tampered, no vote)")
	most := Line(orchestrate.Event{Kind: orchestrate.EvClassify, Agent: "ivy", Test: "ivy-2", Class: orchestrate.TooHard,
		Cells: cells("tampered", "tampered", "tampered", "prepare_failed")})
	assert.Contains(t, most, "0/0 pass (1 not prepared) (tampered on 3 of 3 coders: the test's own doing, rejected)")
}

func TestTamperedSectionIsInert(t *testing.T) {
	s := tamperedRun()
	s.Coders[2].Tampered.Evidence = "tampered: closes #1 @team <b>x</b>\n## heading"
	md := tamperedSection(s)
	require.NotEmpty(t, md)
	assert.NotContains(t, md, "\n## heading")
	assert.Contains(t, md, "| `tampered: closes #1 @team <b>x</b> ## heading` |", "in a code span, on one line: GitHub acts on none of it")
}

// In the other protocols a tampered coder is out too: a single run whose only coder
// tampered names it with the judge's evidence, says why it stopped, and picks nothing.
func TestATamperedCoderIsOutOfTheOtherProtocols(t *testing.T) {
	evidence := "run 1 of 20: tampered: a check of the judge's own that must fail (TestParseLineEmpty41) was reported as pass: something in the test's process changes what the runner reports"
	tamper := &orchestrate.Tamper{Test: "semver_test.go", Evidence: evidence}
	res := &orchestrate.Result{Protocol: "single", Outcome: orchestrate.CodersTampered, Rounds: 2,
		Reason: "coder c1 tampered with the test runner (test semver_test.go: " + evidence + "): its work is not accepted",
		Coders: []orchestrate.CoderState{{Name: "c1", Solves: 2, Commit: "c1@2", Tampered: tamper}},
		Events: []orchestrate.Event{
			{Kind: orchestrate.EvOwnTests, Agent: "c1", Cells: []orchestrate.Cell{{Coder: "c1", Test: "semver_test.go", Outcome: "tampered"}}, Detail: "0 of 1 test files pass"},
			{Kind: orchestrate.EvTampered, Agent: "c1", Coder: "c1", Test: "semver_test.go", Detail: evidence},
		}}
	s := NewSummary("r1", res)
	require.Len(t, s.Coders, 1)
	assert.Equal(t, tamper, s.Coders[0].Tampered)
	md := Markdown(s, res)
	assert.Contains(t, md, "## Tampered: 1 coder\n")
	assert.Contains(t, md, "| c1 | `semver_test.go` | `run 1 of 20: tampered:")
	assert.Contains(t, md, orchestrate.ReasonFor(orchestrate.CodersTampered).Next)
	assert.Contains(t, md, "| `semver_test.go` | tampered |", "the last run of its own tests")
	pk := Choose(s, runfile.Comparison{})
	assert.Empty(t, pk.Coder, "a tampered coder's work is never picked")
	assert.Equal(t, "The single protocol accepted no work, and no coder's is left to pick: every one tampered with the test runner.", pk.Why)
}
