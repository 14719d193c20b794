package report

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/statusline"
	"github.com/dixit-bot/dixit/internal/vet"
)

func jobs(coders, tests []string) []ci.Job {
	var out []ci.Job
	for _, c := range coders {
		for _, t := range tests {
			out = append(out, ci.Job{Coder: c, Test: ci.Test{ID: t}})
		}
	}
	return out
}

func TestJudgingSaysWhatTheJudgeRunsNow(t *testing.T) {
	five := []string{"amber", "basil", "cedar", "dune", "ember"}
	tests := []struct {
		name    string
		jobs    []ci.Job
		started int
		want    string
	}{
		{"a classification in progress", jobs(five, []string{"ivy-3"}), 3, "judging ivy-3 on 5 coders (3/5)"},
		{"a classification not yet begun", jobs(five, []string{"ivy-3"}), 0, "judging ivy-3 on 5 coders"},
		{"a coder's suite", jobs([]string{"basil"}, []string{"ivy-3", "kai-1", "ivy-4", "jun-5"}), 1, "running 4 tests on basil (1/4)"},
		{"every proposal on every implementation", jobs(five, []string{"ivy-1", "ivy-2"}), 7, "running 2 tests on 5 coders (7/10)"},
		{"one job", jobs([]string{"basil"}, []string{"ivy-3"}), 1, "running ivy-3 on basil"},
		// The patch under review and its mutants are judged beside the coders, and are none.
		{"a patch judged beside the coders", jobs(append([]string{vet.PatchName}, five...), []string{"ivy-3", "kai-1"}), 0, "running 2 tests on 5 coders and the patch under review"},
		{"the patch's mutants", jobs([]string{ci.MutantPrefix + "m1", ci.MutantPrefix + "m2", ci.MutantPrefix + "m3"}, []string{"ivy-3", "kai-1"}), 0, "running 2 tests on 3 mutants"},
		{"one coder and the base", jobs([]string{"basil", ci.BaseName}, []string{"ivy-3"}), 0, "judging ivy-3 on 1 coder and the base revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Judging(tt.jobs, tt.started))
		})
	}
}

func TestDoingSaysWhichAgentWorks(t *testing.T) {
	assert.Equal(t, "coders solving (2/5): basil", Doing(orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "basil", Draw: 1, Place: 2, Of: 5}))
	assert.Equal(t, "basil revising its solution", Doing(orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "basil", Draw: 3, Place: 2, Of: 5}))
	assert.Equal(t, "ivy writing a test", Doing(orchestrate.Work{Kind: orchestrate.EvPropose, Agent: "ivy", Draw: 4}))
	assert.Equal(t, "crit answering", Doing(orchestrate.Work{Kind: orchestrate.EvAnswer, Agent: "crit", Draw: 1}))
}

// The status line follows the run: the round from its events, the agent at work from
// Begin until the work ends; the lines are those printed without a status line.
func TestProgressKeepsTheStatusLine(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	status := statusline.New(&out)
	defer status.Close()
	p := NewProgress(status, status)
	elapsed := regexp.MustCompile(` · \d+:\d\d$`)
	now := func() string { return elapsed.ReplaceAllString(status.Text(), "") }

	end := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "basil", Draw: 1, Place: 2, Of: 5})
	assert.Equal(t, "coders solving (2/5): basil", now())
	end()
	assert.Empty(t, status.Text(), "nothing runs")

	p.Event(ctx, orchestrate.Event{Kind: orchestrate.EvRound, Round: 2, Suite: 1})
	end = p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvPropose, Agent: "ivy", Draw: 4})
	assert.Equal(t, "round 2 · ivy writing a test", now())
	end()
	assert.Equal(t, "round 2", now())
	assert.Regexp(t, `^── round 2 · vetted suite: 1 test  \[.*\]\n$`, out.String())
}

// In a parallel phase the status line names every agent at work, not the last to start.
func TestProgressShowsEveryAgentAtWork(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	status := statusline.New(&out)
	defer status.Close()
	p := NewProgress(nil, status)
	elapsed := regexp.MustCompile(`^(.*) · \d+:\d\d$`)
	now := func() string { return elapsed.ReplaceAllString(status.Text(), "$1") }

	endA := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "amber", Draw: 1, Place: 1, Of: 3})
	endB := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "basil", Draw: 1, Place: 2, Of: 3})
	endC := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "cedar", Draw: 1, Place: 3, Of: 3})
	assert.Equal(t, "coders solving (3 at once): amber, basil, cedar", now())
	endB()
	assert.Equal(t, "coders solving (2 at once): amber, cedar", now())
	endA()
	assert.Equal(t, "coders solving (3/3): cedar", now())
	endC()

	endI := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvPropose, Agent: "ivy", Draw: 2})
	endJ := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvPropose, Agent: "jun", Draw: 1})
	assert.Equal(t, "ivy, jun writing tests", now())
	endR := p.Begin(ctx, orchestrate.Work{Kind: orchestrate.EvSolve, Agent: "dune", Draw: 3})
	assert.Equal(t, "ivy writing a test; jun writing a test; dune revising its solution", now())
	endI()
	endJ()
	endR()
	assert.Empty(t, status.Text())
}

func TestProgressWithoutLinesStillKeepsTheStatusLine(t *testing.T) {
	var out bytes.Buffer
	status := statusline.New(&out)
	defer status.Close()
	p := NewProgress(nil, status)
	p.Event(context.Background(), orchestrate.Event{Kind: orchestrate.EvRound, Round: 3})
	assert.Regexp(t, `^round 3 · \d+:\d\d$`, status.Text())
	assert.Empty(t, out.String())
}

// The log says who broke an existing test, and counts only the coders that could vote.
func TestLinesForTheGuardAndUnpreparedCoders(t *testing.T) {
	assert.Equal(t, "  dee      existing tests: breaks example.com/calc/calc.TestAddNegative",
		Line(orchestrate.Event{Kind: orchestrate.EvExisting, Agent: "dee", Detail: "breaks example.com/calc/calc.TestAddNegative"}))
	assert.Empty(t, Line(orchestrate.Event{Kind: orchestrate.EvExisting, Agent: "ada", Detail: "keeps every existing test passing"}))
	ev := orchestrate.Event{Kind: orchestrate.EvClassify, Agent: "tia", Test: "tia-1", Class: orchestrate.Ideal, Passed: 3, Cells: []orchestrate.Cell{
		{Coder: "ada", Outcome: "pass"}, {Coder: "bo", Outcome: "pass"}, {Coder: "cy", Outcome: "fail"}, {Coder: "dee", Outcome: "pass"}, {Coder: "eve", Outcome: "prepare_failed"},
	}}
	assert.Contains(t, Line(ev), "→ IDEAL    3/4 pass (1 not prepared)  ada ACC")
}

// A resumed run whose phases interleave replayed and live events (parallel agents, a run
// with nothing left to do) says it resumed once, and counts in words: "1 event".
func TestProgressSaysResumedOnceAnInvocation(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, nil)
	ctx := context.Background()
	evs := []orchestrate.Event{
		{Round: 1, Kind: orchestrate.EvRound, Replayed: true},
		{Round: 1, Suite: 1, Kind: orchestrate.EvSuite, Agent: "basil", Cells: []orchestrate.Cell{{Coder: "basil", Test: "ivy-3", Outcome: "pass"}}},
		{Round: 2, Suite: 1, Kind: orchestrate.EvRound, Replayed: true},
		{Round: 2, Suite: 1, Kind: orchestrate.EvSuite, Agent: "amber", Cells: []orchestrate.Cell{{Coder: "amber", Test: "ivy-3", Outcome: "pass"}}},
		{Round: 2, Suite: 1, Kind: orchestrate.EvRound, Replayed: true},
		{Round: 2, Suite: 1, Kind: orchestrate.EvEscalate, Outcome: orchestrate.TestersExhausted, Detail: "no tester found more"},
	}
	for _, ev := range evs {
		p.Event(ctx, ev)
	}
	text := out.String()
	assert.Equal(t, 1, strings.Count(text, "resumed:"), text)
	assert.Contains(t, text, "resumed: 1 event replayed from the journal (round 1, 1 vetted test); going on live\n")
	assert.Equal(t, "── round 2 · vetted suite: 1 test", Line(orchestrate.Event{Kind: orchestrate.EvRound, Round: 2, Suite: 1}))
}
