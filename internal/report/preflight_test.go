package report

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// A failing verdict's output reaches the report: a reader sees the compiler's words.
func TestTheReportShowsWhyVerdictsFailed(t *testing.T) {
	res := &orchestrate.Result{Outcome: orchestrate.TestersExhausted, Reason: "no tester has anything more to propose"}
	s := NewSummary("r", res)
	s.Coders = []runfile.Coder{{Name: "amber"}, {Name: "basil"}}
	s.Events = []orchestrate.Event{
		{Kind: orchestrate.EvClassify, Test: "ivy-1", Class: orchestrate.TooHard, Cells: []orchestrate.Cell{
			{Coder: "amber", Test: "ivy-1", Outcome: "build_failed", Output: "dixit_ivy-1_test.go:4:2: undefined: Parse"},
			{Coder: "basil", Test: "ivy-1", Outcome: "build_failed", Output: "dixit_ivy-1_test.go:4:2: undefined: Parse"}}},
		{Kind: orchestrate.EvClassify, Test: "ivy-1", Class: orchestrate.TooHard, Detail: "stacked", Cells: []orchestrate.Cell{
			{Coder: "amber", Test: "ivy-1", Outcome: "build_failed", Output: "dixit_ivy-1_test.go:4:2: undefined: Parse"},
			{Coder: "basil", Test: "ivy-1", Outcome: "build_failed", Output: "dixit_ivy-1_test.go:4:2: undefined: Parse"}}},
		{Kind: orchestrate.EvSuite, Agent: "basil", Cells: []orchestrate.Cell{
			{Coder: "basil", Test: "ivy-2", Outcome: "fail", Output: "--- FAIL: TestOrder: want -1, got 1"}}},
	}
	md := Markdown(s, res)
	assert.Contains(t, md, "## Why verdicts failed")
	assert.Equal(t, 1, strings.Count(md, "undefined: Parse"), "a stacked test tried again shows once")
	assert.Contains(t, md, "want -1, got 1")
	assert.Contains(t, md, "no test was vetted: nothing backs or separates the implementations",
		"an empty suite is not an agreement")
	assert.NotContains(t, md, "the implementations agree on every vetted test")
}

// A run stopped by its preflight says what to do and shows what the judge said.
func TestTheReportOfAnEnvironmentStopSaysWhatToDo(t *testing.T) {
	res := &orchestrate.Result{Outcome: orchestrate.Environment, Reason: "the judge could not build the base revision"}
	s := NewSummary("r", res)
	s.Preflight = &runfile.Preflight{Outcome: "fail", Output: "/usr/bin/python3: No module named pytest", Hint: "pytest is not installed for the python3 the judge uses"}
	md := Markdown(s, res)
	assert.Contains(t, md, "**Outcome: ENVIRONMENT**")
	assert.Contains(t, md, "No agent was called")
	assert.Contains(t, md, "What to do: pytest is not installed")
	assert.Contains(t, md, "No module named pytest")
	assert.NotContains(t, md, "What ran out", "no budget ran out")
}

// The status comment on the issue says the run stopped for the environment, and why.
func TestTheStatusCommentSaysTheEnvironmentStoppedTheRun(t *testing.T) {
	s := NewStatus("r", []string{"amber"}, []string{"ivy"})
	s.Event(context.Background(), orchestrate.Event{Kind: orchestrate.EvEscalate, Outcome: orchestrate.Environment,
		Detail: "the judge could not build the base revision: pytest is not installed for the python3 the judge uses"})
	md := s.Markdown()
	assert.Contains(t, md, "Dixit: ENVIRONMENT")
	assert.Contains(t, md, "pytest is not installed")
}
