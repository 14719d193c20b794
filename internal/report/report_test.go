package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

func sampleResult() *orchestrate.Result {
	cells := []orchestrate.Cell{
		{Coder: "amber", Test: "ivy-3", Outcome: "pass", Runs: 20},
		{Coder: "basil", Test: "ivy-3", Outcome: "build_failed"},
		{Coder: "cedar", Test: "ivy-3", Outcome: "pass", Runs: 20},
	}
	test := orchestrate.Vetted{
		Candidate: orchestrate.Candidate{ID: "ivy-3", Tester: "ivy", Proposal: 3, Content: []byte("func TestX(t *testing.T) {}\n```\n")},
		Number:    1, Round: 1, PassedBy: []string{"amber", "cedar"}, FailedBy: []string{"basil"},
	}
	return &orchestrate.Result{
		Outcome: orchestrate.CodersStuck, Reason: "coder basil still fails part of the vetted suite after 3 retries", Rounds: 2,
		Vetted:  []orchestrate.Vetted{test},
		Coders:  []orchestrate.CoderState{{Name: "amber", Solves: 1, Commit: "c1"}, {Name: "basil", Solves: 4, Commit: "c2"}, {Name: "cedar", Solves: 1, Commit: "c3"}},
		Testers: []orchestrate.TesterState{{Name: "ivy", State: "active", Proposals: 3}},
		Events: []orchestrate.Event{
			{Seq: 1, Round: 1, Kind: orchestrate.EvRound},
			{Seq: 2, Round: 1, Kind: orchestrate.EvClassify, Agent: "ivy", Test: "ivy-3", Class: orchestrate.Ideal, Passed: 2, Cells: cells},
			{Seq: 3, Round: 1, Kind: orchestrate.EvVet, Agent: "ivy", Test: "ivy-3", Detail: "test 1"},
			{Seq: 4, Round: 2, Kind: orchestrate.EvSuite, Agent: "basil", Cells: cells[1:2], Detail: "WA"},
			{Seq: 5, Round: 2, Kind: orchestrate.EvSuite, Agent: "amber", Cells: cells[0:1], Detail: "ACC"},
			{Seq: 6, Round: 2, Kind: orchestrate.EvEscalate, Outcome: orchestrate.CodersStuck, Detail: "coder basil still fails"},
		},
		Live: 5,
	}
}

func TestProgressPrintsLiveEventsAndSummarisesReplayedOnes(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, nil)
	res := sampleResult()
	for i, ev := range res.Events {
		ev.Replayed = i < 3
		p.Event(context.Background(), ev)
	}
	text := out.String()
	assert.Contains(t, text, "resumed: 3 events replayed from the journal")
	assert.NotContains(t, text, "proposes ivy-3", "replayed events are not printed one by one")
	assert.Contains(t, text, "basil    suite  WA(build failed)")
	assert.Contains(t, text, "══ escalation CODERS_STUCK")
}

func TestWriteProducesSummaryAndReport(t *testing.T) {
	dir := t.TempDir()
	res := sampleResult()
	s := NewSummary("demo-1", res)
	s.Agents, s.Population = "scripted", "examples/x"
	paths, err := Write(dir, s, res)
	require.NoError(t, err)
	jsonPath, mdPath := paths.Summary, paths.Markdown

	var back map[string]any
	data, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	for _, key := range []string{"outcome", "rounds", "vetted", "coders", "testers", "events", "judge"} {
		assert.Contains(t, back, key)
	}
	vetted := back["vetted"].([]any)[0].(map[string]any)
	assert.Equal(t, "ivy", vetted["tester"])
	assert.EqualValues(t, 3, vetted["proposal"])
	assert.Equal(t, []any{"amber", "cedar"}, vetted["passed_by"])
	coder := back["coders"].([]any)[1].(map[string]any)
	assert.Equal(t, "refs/dixit/demo-1/coders/basil", coder["ref"])

	md, err := os.ReadFile(mdPath)
	require.NoError(t, err)
	report := string(md)
	assert.Contains(t, report, "**Outcome: CODERS_STUCK**")
	assert.Contains(t, report, "scripted population")
	assert.Contains(t, report, "| basil | FAIL: build_failed |", "the matrix shows the last suite run")
	assert.Contains(t, report, "| amber | pass |", "a pass says so in words, not in a glyph a font may lack")
	assert.Contains(t, report, "| cedar | not run |", "a coder not run since says so")
	assert.Contains(t, report, "````\nfunc TestX(t *testing.T) {}\n```\n````\n", "a test's own fence cannot close the report's")
	page, err := os.ReadFile(paths.HTML)
	require.NoError(t, err)
	assert.Contains(t, string(page), "<td>basil</td>", "the HTML page has the matrix")
	assert.Contains(t, string(page), `<td class="pass">pass</td>`, "a cell reads without an emoji font, and is coloured")
	assert.Contains(t, string(page), `<td class="fail">FAIL: build_failed</td>`)
	assert.NotContains(t, string(page), "<script", "the page runs no script")
	_, err = os.Stat(filepath.Join(dir, "summary.json.tmp"))
	assert.True(t, os.IsNotExist(err), "writes are atomic")
}

// A coder stuck on the repository's own tests (the vetted suite may be empty) is named
// in the evidence with the tests it breaks, and the report says so in those words.
func TestACoderStuckOnTheRepositorysOwnTestsIsNamed(t *testing.T) {
	res := &orchestrate.Result{
		Outcome: orchestrate.CodersStuck, Reason: "coder dee still breaks the repository's test a.py::test_x after 1 retry", Rounds: 1,
		Coders: []orchestrate.CoderState{{Name: "cy", Solves: 1, Commit: "c1"}, {Name: "dee", Solves: 2, Commit: "c2"}},
		Events: []orchestrate.Event{
			{Seq: 1, Round: 1, Kind: orchestrate.EvRound},
			{Seq: 2, Round: 1, Kind: orchestrate.EvExisting, Agent: "cy", Detail: "keeps every existing test passing"},
			{Seq: 3, Round: 1, Kind: orchestrate.EvExisting, Agent: "dee", Detail: "breaks a.py::test_x, a.py::test_y"},
			{Seq: 4, Round: 1, Kind: orchestrate.EvEscalate, Outcome: orchestrate.CodersStuck, Detail: "coder dee still breaks"},
		},
	}
	s := NewSummary("r1", res)
	require.NotNil(t, s.Evidence.Stuck)
	assert.Equal(t, "dee", s.Evidence.Stuck.Coder)
	assert.Equal(t, []string{"a.py::test_x", "a.py::test_y"}, s.Evidence.Stuck.Failing)
	md := evidenceSection(s, res)
	assert.Contains(t, md, "**dee** still breaks 2 of the repository's own tests that pass on the base: `a.py::test_x`, `a.py::test_y`.")
}
