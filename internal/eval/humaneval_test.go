package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/eval"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

const humanevalGo = "../../examples/humaneval-go"

// The HumanEval-X benchmark loads: 20 tasks, live agents only, the source's licence beside.
func TestHumanEvalGoBenchmarkLoads(t *testing.T) {
	b, err := eval.Load(humanevalGo)
	require.NoError(t, err)
	require.Len(t, b.Tasks, 20)
	for _, task := range b.Tasks {
		assert.True(t, task.LiveOnly, task.Name)
		assert.Len(t, task.Hidden, 1, task.Name)
	}
	assert.FileExists(t, filepath.Join(humanevalGo, "LICENSE"))

	// Offline, with no scripted agents, every task is skipped and says how to run it.
	rep, err := eval.Run(context.Background(), eval.Options{Bench: humanevalGo, StateDir: t.TempDir(), Protocols: []string{"single"}})
	require.NoError(t, err)
	assert.Empty(t, rep.Runs)
	require.Len(t, rep.Skipped, 20)
	assert.Equal(t, "no scripted agents: the task is for bot eval --live", rep.Skipped[0].Why)
}

// Two HumanEval-X tasks under single, with a model faked at the HTTP level: it solves
// BelowZero (the reference's code) and gets GreatestCommonDivisor wrong, each with one
// test of its own. The report has the per-protocol table with bootstrap intervals over
// the two tasks and the mutants killed, and running the same command again resumes
// without asking the model anything.
func TestLiveHumanEvalGoEndToEnd(t *testing.T) {
	bench := t.TempDir()
	for _, task := range []string{"go003-below-zero", "go013-greatest-common-divisor"} {
		copyDir(t, filepath.Join(humanevalGo, task), filepath.Join(bench, task))
	}
	belowZero, err := os.ReadFile(filepath.Join(humanevalGo, "go003-below-zero", "reference", "below_zero.go"))
	require.NoError(t, err)
	var requests atomic.Int32
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		requests.Add(1)
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("f", "finish", map[string]string{"summary": "done"})}}
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
		}
		file, code := "below_zero.go", string(belowZero)
		test := "package humaneval\n\nimport \"testing\"\n\nfunc TestMine(t *testing.T) {\n\tif BelowZero([]int{1, 2}) {\n\t\tt.Fatal(\"assert_id=00aa11\")\n\t}\n}\n"
		if strings.Contains(all.String(), "GreatestCommonDivisor") {
			// Wrong: the smaller number, which is right only when it divides the other.
			file = "greatest_common_divisor.go"
			code = "package humaneval\n\nfunc GreatestCommonDivisor(a int, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
			test = "package humaneval\n\nimport \"testing\"\n\nfunc TestMine(t *testing.T) {\n\tif GreatestCommonDivisor(5, 10) != 5 {\n\t\tt.Fatal(\"assert_id=00bb22\")\n\t}\n}\n"
		}
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{
			toolCall("w1", "write_file", map[string]string{"path": file, "content": code}),
			toolCall("w2", "write_file", map[string]string{"path": "mine_test.go", "content": test}),
		}}
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	state := t.TempDir()
	opts := eval.Options{Bench: bench, StateDir: state, BuildCache: buildCache, Protocols: []string{"single"}, Client: client, Model: "fake-coder"}
	rep, err := eval.Run(context.Background(), opts)
	require.NoError(t, err)
	require.Len(t, rep.Runs, 2)
	byTask := map[string]eval.Row{}
	for _, row := range rep.Runs {
		byTask[row.Task] = row
	}
	below, gcd := byTask["go003-below-zero"], byTask["go013-greatest-common-divisor"]
	assert.True(t, below.Solved)
	assert.False(t, gcd.Solved)
	assert.Equal(t, []string{"hidden_greatest_common_divisor"}, gcd.Hidden.Failed)
	assert.Equal(t, eval.Score{Passed: 1, Total: 1}, below.Precision, "its own test is right about the reference")

	// Mutants of BelowZero's `balance < 0`: its own test (no overdraft) kills the negation
	// (>=), not the boundary (<=), which the hidden tests kill too.
	require.NotNil(t, below.Mutation)
	assert.Equal(t, 2, below.Mutation.Mutants)
	assert.Equal(t, 1, below.Mutation.Tests.Killed)
	assert.Equal(t, 2, below.Mutation.Hidden.Killed)

	require.Len(t, rep.Totals, 1)
	total := rep.Totals[0]
	assert.Equal(t, 1, total.Solved)
	require.NotNil(t, total.Intervals.Solved, "two tasks: an interval")
	assert.Equal(t, eval.Interval{Low: 0, High: 1}, *total.Intervals.Solved)
	md := eval.Markdown(rep, "")
	assert.Contains(t, md, "| single | 2 | 1/2 [0.00, 1.00] |")
	assert.Contains(t, md, "95 % bootstrap confidence intervals over tasks")
	assert.Contains(t, md, "**Live LLM agents**, model `fake-coder`.", "--model's model, not the one dixit.yml names")

	// The same command again: every run resumes from its journal, the model is not asked.
	asked := requests.Load()
	again, err := eval.Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, asked, requests.Load(), "no model call is paid for twice")
	for _, row := range again.Runs {
		assert.True(t, row.Resumed, row.Task)
	}
	assert.Equal(t, rep.Totals[0].Killed, again.Totals[0].Killed)

	// Another model is another run: nothing is resumed from the first model's journals.
	opts.Model = "other-model"
	other, err := eval.Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Greater(t, requests.Load(), asked, "the other model is asked")
	assert.False(t, other.Runs[0].Resumed)
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
}

// All 20 tasks under single through the real judge, with a fake model that hands in each
// task's reference solution: every task is solved, and the time it takes is the
// benchmark's cost without the model's (docs/eval.md). Slow, so only with
// DIXIT_EVAL_ALL=1.
func TestLiveHumanEvalGoAllTasksWithTheReference(t *testing.T) {
	if os.Getenv("DIXIT_EVAL_ALL") != "1" {
		t.Skip("set DIXIT_EVAL_ALL=1 to run all 20 tasks")
	}
	b, err := eval.Load(humanevalGo)
	require.NoError(t, err)
	references := map[string][2]string{} // function -> file, code
	for _, task := range b.Tasks {
		entries, err := os.ReadDir(task.Reference)
		require.NoError(t, err)
		for _, e := range entries {
			if e.Name() != "go.mod" {
				data, err := os.ReadFile(filepath.Join(task.Reference, e.Name()))
				require.NoError(t, err)
				references[task.Name] = [2]string{e.Name(), string(data)}
			}
		}
	}
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("f", "finish", map[string]string{"summary": "done"})}}
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
		}
		for _, ref := range references {
			if strings.Contains(all.String(), "(file `"+ref[0]+"`") {
				return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("w1", "write_file", map[string]string{"path": ref[0], "content": ref[1]})}}
			}
		}
		t.Errorf("no task recognised in the request")
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("f", "finish", map[string]string{"summary": "?"})}}
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	var progress strings.Builder
	rep, err := eval.Run(context.Background(), eval.Options{Bench: humanevalGo, StateDir: t.TempDir(), BuildCache: buildCache,
		Protocols: []string{"single"}, Client: client, Progress: &progress})
	require.NoError(t, err, progress.String())
	require.Len(t, rep.Runs, 20)
	for _, row := range rep.Runs {
		assert.True(t, row.Solved, "%s: %v", row.Task, row.Hidden.Failed)
	}
	assert.Equal(t, eval.Score{}, rep.Totals[0].Killed.Tests, "no own test: n/a, not 0 killed")
	t.Logf("20 tasks in %.0f s; mutants killed by the hidden tests: %s", rep.WallSeconds, eval.Markdown(rep, ""))
}

// dixit on two HumanEval-X tasks with a model faked at the HTTP level: two coders hand in
// the reference and the third a wrong function at first; two testers write right tests
// and the third a wrong one. The
// wrong test never enters the vetted suite, and, failing on the pick, kills no mutant;
// the report compares the vetted suite, all proposed tests and the hidden tests on the
// pick's mutants.
func TestLiveDixitOnHumanEvalGo(t *testing.T) {
	if testing.Short() {
		t.Skip("two dixit runs with the real judge")
	}
	bench := t.TempDir()
	tasks := map[string][3]string{ // task -> reference file, right test body, wrong test body
		"go003-below-zero": {"below_zero.go", "if BelowZero([]int{1, 2}) {\n\t\tt.Fatal(\"assert_id=aa\")\n\t}",
			"if !BelowZero([]int{1, 2}) {\n\t\tt.Fatal(\"assert_id=bb\")\n\t}"},
		"go013-greatest-common-divisor": {"greatest_common_divisor.go", "if GreatestCommonDivisor(25, 15) != 5 {\n\t\tt.Fatal(\"assert_id=cc\")\n\t}",
			"if GreatestCommonDivisor(25, 15) != 15 {\n\t\tt.Fatal(\"assert_id=dd\")\n\t}"},
	}
	// The benchmark's agents differ only by sampling; here personas tell the fake apart.
	settings := "protocol: dixit\ncoders: 3\ntesters: 3\nreruns: 1\nmax_rounds: 3\ntest: {preset: go, timeout: 20s}\nagents:\n" +
		"  coders:\n    - {name: tea, persona: \"You like tea.\"}\n    - {name: coffee, persona: \"You like coffee.\"}\n" +
		"    - {name: water, persona: \"You like water.\"}\n" +
		"  testers:\n    - {name: ivy, direction: \"Ivy.\"}\n    - {name: oak, direction: \"Oak.\"}\n    - {name: yew, direction: \"Yew.\"}\n"
	references := map[string]string{}
	for task, f := range tasks {
		copyDir(t, filepath.Join(humanevalGo, task), filepath.Join(bench, task))
		require.NoError(t, os.WriteFile(filepath.Join(bench, task, "dixit.yml"), []byte(settings), 0o644))
		data, err := os.ReadFile(filepath.Join(humanevalGo, task, "reference", f[0]))
		require.NoError(t, err)
		references[task] = string(data)
	}
	// water hands in a wrong function first (true, 1), and the reference once told that
	// tests fail; yew's test expects the wrong answer.
	wrong := map[string]string{
		"go003-below-zero":              "package humaneval\n\nfunc BelowZero(operations []int) bool {\n\treturn true\n}\n",
		"go013-greatest-common-divisor": "package humaneval\n\nfunc GreatestCommonDivisor(a int, b int) int {\n\treturn 1\n}\n",
	}
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		system, last := req.Messages[0].Content, req.Messages[len(req.Messages)-1]
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
		}
		task := "go003-below-zero"
		if strings.Contains(all.String(), "GreatestCommonDivisor") {
			task = "go013-greatest-common-divisor"
		}
		if strings.Contains(system, "You write tests") {
			body := tasks[task][1]
			if strings.Contains(system, "Yew.") {
				body = tasks[task][2]
			}
			if strings.Contains(last.Content, "write a probe") {
				body = "t.Log(\"no probe\")"
			}
			content := "package humaneval\n\nimport \"testing\"\n\nfunc TestTheirs(t *testing.T) {\n\t" + body + "\n}\n"
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("s1", "submit_test", map[string]string{"content": content})}}
		}
		if last.Role == "tool" {
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("f", "finish", map[string]string{"summary": "done"})}}
		}
		code, turns := references[task], 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				turns++
			}
		}
		if strings.Contains(system, "You like water.") && turns == 1 {
			code = wrong[task]
		}
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("w1", "write_file", map[string]string{"path": tasks[task][0], "content": code})}}
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	rep, err := eval.Run(context.Background(), eval.Options{Bench: bench, StateDir: t.TempDir(), BuildCache: buildCache,
		Protocols: []string{"dixit"}, Client: client, Model: "fake-coder"})
	require.NoError(t, err)
	require.Len(t, rep.Runs, 2)
	for _, row := range rep.Runs {
		assert.True(t, row.Solved, row.Task)
		assert.Equal(t, "vetted", row.TestsKind)
		assert.Equal(t, 1.0, rateOf(row.Precision), "%s: only right tests are vetted: %v", row.Task, row.Precision.Failed)
		require.NotNil(t, row.Mutation, row.Task)
		m := row.Mutation
		assert.Less(t, m.Proposed.Used, m.Proposed.Tests, "%s: the wrong test fails on the pick and kills nothing", row.Task)
		assert.LessOrEqual(t, m.Tests.Killed, m.Proposed.Killed, row.Task)
	}
	md := eval.Markdown(rep, "")
	assert.Contains(t, md, "| dixit | 2 | 2/2 [1.00, 1.00] |")
	t.Log(tableRows(md, "| protocol | tasks |")[2])
}

func rateOf(s eval.Score) float64 {
	r, _ := s.Rate()
	return r
}
