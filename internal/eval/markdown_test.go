package eval_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/eval"
	"github.com/dixit-bot/dixit/internal/mutation"
)

func sampleReport() *eval.Report {
	return &eval.Report{
		Schema: eval.Schema, Bench: "b", Agents: "scripted", Protocols: []string{"dixit", "single"},
		Runs: []eval.Row{
			{Task: "t1", Protocol: "dixit", Run: "eval-t1-dixit-1", Outcome: "TESTERS_EXHAUSTED", Final: "amy",
				Hidden: eval.Score{Passed: 3, Total: 3}, Solved: true, Precision: eval.Score{Passed: 2, Total: 3, Failed: []string{"uma-1"}},
				TestsKind: "vetted", Mutation: &eval.Mutation{Generated: 4, Mutants: 4,
					Tests: mutation.Score{Suite: "run's", Tests: 2, Used: 2, Killed: 1, Mutants: 4}, Proposed: mutation.Score{Suite: "proposed", Tests: 3, Used: 2, Killed: 3, Mutants: 4},
					Hidden: mutation.Score{Suite: "hidden", Tests: 3, Used: 3, Killed: 2, Mutants: 4}}, LLMCalls: 9, PromptTokens: 100, CompletionTokens: 50, CostUSD: 0.25, JudgeExecutions: 4, WallSeconds: 2.5},
			{Task: "t1", Protocol: "single", Run: "eval-t1-single-1", Outcome: "ACCEPTED", Final: "sol",
				Hidden: eval.Score{Passed: 1, Total: 3, Failed: []string{"hidden_a", "hidden_b"}}, TestsKind: "own",
				LLMCalls: 1, JudgeExecutions: 1, WallSeconds: 1, Resumed: true},
		},
		Skipped: []eval.Skipped{{Task: "t2", Protocol: "single", Why: "no agents for single"}},
		Totals: []eval.Total{
			{Protocol: "dixit", Tasks: 1, Solved: 1, Hidden: eval.Score{Passed: 3, Total: 3}, Precision: eval.Score{Passed: 2, Total: 3},
				Killed: eval.KilledTotals{Tests: eval.Score{Passed: 1, Total: 4}, Proposed: eval.Score{Passed: 3, Total: 4}, Hidden: eval.Score{Passed: 2, Total: 4}}, LLMCalls: 9, Tokens: 150, CostUSD: 0.25, JudgeExecutions: 4, WallSeconds: 2.5},
			{Protocol: "single", Tasks: 1, Hidden: eval.Score{Passed: 1, Total: 3}, LLMCalls: 1, JudgeExecutions: 1, WallSeconds: 1},
		},
		WallSeconds: 3.5,
	}
}

// The tables have one row per protocol (or run), each with as many cells as its header.
func TestMarkdownTables(t *testing.T) {
	md := eval.Markdown(sampleReport(), "")
	byProtocol := tableRows(md, "| protocol | tasks |")
	require.Len(t, byProtocol, 4, "header, rule, two protocols")
	assert.Equal(t, []string{"dixit", "1", "1/1", "1.00 (3/3)", "0.67 (2/3)", "0.25 (1/4) · 0.75 (3/4) · 0.50 (2/4)", "9", "150", "$0.2500", "4", "2.5 s"}, byProtocol[2])
	assert.Equal(t, []string{"single", "1", "0/1", "0.33 (1/3)", "n/a", "n/a", "1", "0", "$0.0000", "1", "1.0 s"}, byProtocol[3])
	byTask := tableRows(md, "| protocol | outcome |")
	require.Len(t, byTask, 4)
	for _, row := range byTask {
		assert.Len(t, row, len(byTask[0]))
	}
	for _, row := range byProtocol {
		assert.Len(t, row, len(byProtocol[0]))
	}
	assert.Equal(t, "`uma-1`", byTask[2][7], "the vetted test the reference fails")
	assert.Equal(t, "1 · 3 · 2 of 4", byTask[2][8], "mutants killed by the vetted suite, all proposed tests, the hidden tests")
	assert.Equal(t, "n/a", byTask[3][8], "not measured")
	assert.Contains(t, md, "No confidence intervals: they need two tasks or more.")
	assert.Equal(t, "`hidden_a`, `hidden_b`", byTask[3][6])
	assert.Equal(t, "ACCEPTED (resumed)", byTask[3][1])
	assert.Contains(t, md, "### t1\n")
	assert.Contains(t, md, "## Skipped\n\n- task t2, protocol single: no agents for single\n")
	assert.Contains(t, md, "![Hidden pass rate and precision by protocol](eval.svg)")
}

func TestSVGDrawsBothBarsAndNA(t *testing.T) {
	svg := eval.SVG(sampleReport())
	assert.True(t, strings.HasPrefix(svg, "<svg "))
	assert.True(t, strings.HasSuffix(svg, "</svg>"))
	assert.Equal(t, 3, strings.Count(svg, `fill="#2f6fd0"`), "two hidden bars and the legend")
	assert.Equal(t, 2, strings.Count(svg, `fill="#e3882b"`), "one precision bar and the legend")
	assert.Contains(t, svg, ">n/a</text>")
	assert.Contains(t, svg, ">0.67</text>")
	assert.NotContains(t, svg, `class="ci"`, "one task: no interval to draw")

	rep := sampleReport()
	rep.Totals[0].Intervals.Hidden = &eval.Interval{Low: 0.5, High: 0.75}
	svg = eval.SVG(rep)
	assert.Equal(t, 1, strings.Count(svg, `class="ci"`), "the interval drawn on its bar")
	assert.Contains(t, svg, "lines: 95 % intervals over tasks")
}

func TestJSONRoundTripAndSchema(t *testing.T) {
	dir := t.TempDir()
	rep := sampleReport()
	_, err := eval.Write(dir, rep)
	require.NoError(t, err)
	back, err := eval.ReadJSON(filepath.Join(dir, "eval.json"))
	require.NoError(t, err)
	assert.Equal(t, rep, back)

	data, err := os.ReadFile(filepath.Join(dir, "eval.json"))
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	assert.EqualValues(t, 2, raw["schema"])
	row := raw["runs"].([]any)[0].(map[string]any)
	for _, key := range []string{"task", "protocol", "final", "hidden", "solved", "precision", "tests_kind", "llm_calls",
		"prompt_tokens", "completion_tokens", "cost_usd", "judge_executions", "wall_seconds", "mutation"} {
		assert.Contains(t, row, key)
	}

	other := strings.Replace(string(data), `"schema": 2`, `"schema": 1`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "eval.json"), []byte(other), 0o644))
	_, err = eval.ReadJSON(filepath.Join(dir, "eval.json"))
	assert.ErrorContains(t, err, "schema 1, this build reads 2")

	unknown := strings.Replace(string(data), `"schema": 2`, `"schema": 2, "extra": true`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "eval.json"), []byte(unknown), 0o644))
	_, err = eval.ReadJSON(filepath.Join(dir, "eval.json"))
	assert.ErrorContains(t, err, `unknown field "extra"`)
}

// A reader learns first what kind of agents ran: scripted ones prove the plumbing, not the
// merit of the protocols; live ones name their models. In every file the eval writes.
func TestTheReportSaysWhichAgentsRan(t *testing.T) {
	scripted := sampleReport()
	live := sampleReport()
	live.Agents = "llm"
	live.Runs[0].Models = []string{"gpt-4o-mini", "o3-mini"}
	live.Runs[1].Models = []string{"gpt-4o-mini"}
	odd := sampleReport()
	odd.Agents = "llm"
	odd.Runs[0].Models = []string{"a``b"}
	unknown := sampleReport()
	unknown.Agents = "llm"
	cases := []struct {
		name     string
		rep      *eval.Report
		md, plot string
	}{
		{"scripted", scripted, "> **Scripted agents.** Every coder, tester and critic here is hand-written (each task's populations), so this comparison proves the plumbing (protocols, judge, measurement), not the merit of the protocols.",
			"Scripted, hand-written agents: proves the plumbing, not the protocols&#39; merit"},
		{"live", live, "> **Live LLM agents**, models `gpt-4o-mini`, `o3-mini`.", "Live LLM agents: gpt-4o-mini, o3-mini"},
		{"live, a model name with backticks", odd, "> **Live LLM agents**, model ```a``b```.", "Live LLM agents: a``b"},
		{"live, models not recorded", unknown, "> **Live LLM agents**; which models they used was not recorded.", "Live LLM agents"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := eval.Write(dir, tc.rep)
			require.NoError(t, err)
			read := func(name string) string {
				data, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				return string(data)
			}
			md := read("eval.md")
			assert.True(t, strings.HasPrefix(md, "# Protocol evaluation\n\n"+tc.md), "said at the top of eval.md")
			assert.Contains(t, read("eval.html"), "<blockquote>", "the page shows the note")
			assert.Contains(t, read("eval.html"), tc.plot, "the page's plot says it too")
			svg := read("eval.svg")
			assert.Contains(t, svg, ">"+tc.plot+"</text>", "the plot, shown on its own, says it")
			assert.Contains(t, svg, `aria-label="Hidden pass rate and precision by protocol. `+tc.plot+`"`)
		})
	}
}

func TestAgentModelsListsEachModelOnce(t *testing.T) {
	a := config.Agents{Model: "gpt-4o-mini",
		Coders:  []config.AgentSettings{{Name: "amber"}, {Name: "basil", Model: "o3-mini"}, {Name: "cedar", Model: "gpt-4o-mini"}},
		Testers: []config.AgentSettings{{Name: "ivy", Model: "claude-x"}}}
	assert.Equal(t, []string{"gpt-4o-mini", "o3-mini", "claude-x"}, eval.AgentModels(a))
}
