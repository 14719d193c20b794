package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newRunner(t *testing.T) runner {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "runner.py")
	require.NoError(t, os.WriteFile(script, runnerPy, 0o644))
	return runner{python: "python3", script: script, scratch: dir, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestRunnerJudgesAProblem: one problem through runner.py, with the coders a corpus holds:
// right, wrong, stuck in a loop, not Python, fenced, and one carrying its own asserts.
func TestRunnerJudgesAProblem(t *testing.T) {
	r := newRunner(t)
	label := true
	p := &problem{TaskID: "MBPP/1", EntryPoint: "double", Canonical: "def double(x):\n    return 2 * x\n",
		TestList: []string{"assert double(1) == 2", "assert double(0) == 0", "assert double(-3)==-6"},
		Coders: []raw{
			{ID: "m/right#0", Source: "m/right", Code: "def double(x):\n    return x + x\n", Label: &label},
			{ID: "m/wrong#0", Source: "m/wrong", Code: "def double(x):\n    return abs(2 * x)\n"},
			{ID: "m/loop#0", Source: "m/loop", Code: "def double(x):\n    while True:\n        pass\n"},
			{ID: "m/prose#0", Source: "m/prose", Code: "First, double the number.\n"},
			{ID: "m/fenced#0", Source: "m/fenced", Code: "Here it is:\n```python\ndef double(x):\n    return x * 2\n```\n"},
			{ID: "m/self#0", Source: "m/self", Code: "def double(x):\n    return 2 * x\n\nassert double(1) == 2\nassert double(2) == 5, 'mine'\n"},
		}}
	res, err := r.one(context.Background(), p)
	require.NoError(t, err)
	rec := assemble(p, res)

	var tests []string
	for _, x := range rec.Tests {
		tests = append(tests, x.ID+" "+x.Code)
	}
	assert.Equal(t, []string{"mbpp/test_list#0 assert double(1) == 2", "mbpp/test_list#1 assert double(0) == 0",
		"mbpp/test_list#2 assert double(-3) == -6", "m/self#0 assert double(2) == 5"}, tests,
		"the coder's copy of a test_list assert is not a new test; its own one is, without its message")
	assert.Equal(t, []bool{true, true, true, false}, []bool{rec.Tests[0].Correct, rec.Tests[1].Correct, rec.Tests[2].Correct, rec.Tests[3].Correct})
	require.NotNil(t, rec.Tests[3].CanonicalError)
	assert.Equal(t, "AssertionError", *rec.Tests[3].CanonicalError)

	byID := map[string]int{}
	for i, c := range rec.Coders {
		byID[c.ID] = i
	}
	row := func(id string) []int8 { return rec.PassMatrix[byID[id]] }
	coder := func(id string) coderRecord { return rec.Coders[byID[id]] }
	assert.Equal(t, []int8{1, 1, 1, 0}, row("m/right#0"))
	assert.True(t, coder("m/right#0").HiddenPass)
	assert.Equal(t, &label, coder("m/right#0").LabelFromSource)
	assert.Equal(t, []int8{1, 1, 0, 0}, row("m/wrong#0"))
	assert.False(t, coder("m/wrong#0").HiddenPass)
	assert.Equal(t, []int8{0, 0, 0, 0}, row("m/loop#0"))
	assert.Equal(t, 4, coder("m/loop#0").TestTimeouts)
	assert.False(t, coder("m/prose#0").Loads)
	assert.True(t, coder("m/fenced#0").HiddenPass, "markdown fences are stripped")
	assert.True(t, coder("m/self#0").HiddenPass, "its failing own assert was removed from the program")
	assert.NotContains(t, coder("m/self#0").Code, "assert")
}

// TestCodersTakesOffTheAppendedTests: AgentCoder's full_code is the program the executor
// ran, with test_list appended; a record where it is not at the end is left out.
func TestCodersTakesOffTheAppendedTests(t *testing.T) {
	passed := false
	recs := []map[string]any{
		{"task_id": 11, "completion": "x", "test_list": []string{"assert f(1) == 1", "assert f(2) == 2"},
			"full_code": "def f(x):\n    return 1\n\n\nassert f(1) == 1\nassert f(2) == 2\n", "passed": passed},
		{"task_id": 12, "completion": "x", "test_list": []string{"assert g(1) == 1"},
			"full_code": "def g(x):\n    return 1\n", "passed": true},
	}
	data, err := json.Marshal(recs)
	require.NoError(t, err)
	skipped := map[string]int{}
	got, err := coders(agentCoderRound(1, "blob"), data, skipped)
	require.NoError(t, err)
	require.Contains(t, got, 11)
	assert.Equal(t, "def f(x):\n    return 1\n\n\n", got[11].Code)
	assert.Equal(t, "agentcoder/gpt-3.5-turbo#1", got[11].ID)
	assert.Equal(t, "agentcoder/gpt-3.5-turbo", got[11].Source)
	assert.Equal(t, &passed, got[11].Label)
	assert.NotContains(t, got, 12)
	assert.Equal(t, 1, skipped["agentcoder full_code without its test_list at the end"])
}

func TestTaskNumber(t *testing.T) {
	tests := []struct {
		name, taskID string
		want         int
		err          string
	}{
		{"mbpp_234_volume_cube", "", 234, ""},
		{"", "MBPP/11", 11, ""},
		{"mbpp", "", 0, `name "mbpp" is not mbpp_<number>_<entry point>`},
		{"", "HumanEval/3", 0, "no MBPP number"},
	}
	for _, tc := range tests {
		n, err := taskNumber(tc.name, tc.taskID)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, n)
	}
}

// TestProblemsNamesTheCalledFunction: the entry point is the reference's function that the
// test_list calls, not a helper defined before it.
func TestProblemsNamesTheCalledFunction(t *testing.T) {
	data := `[{"task_id": 7, "prompt": "p", "code": "def helper(x):\n    return x\ndef main_fn(x):\n    return helper(x)\n",
		"test_imports": [], "test_list": ["assert main_fn(1) == 1"]},
		{"task_id": 8, "prompt": "p", "code": "def other(x):\n    return x\n", "test_imports": [], "test_list": ["assert f(1) == 1"]}]`
	_, err := problems([]byte(data))
	assert.ErrorContains(t, err, "MBPP/8: no function of the reference solution is called by its test_list")
	ps, err := problems([]byte(data[:len(data)-len(`,
		{"task_id": 8, "prompt": "p", "code": "def other(x):\n    return x\n", "test_imports": [], "test_list": ["assert f(1) == 1"]}]`)] + "]"))
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, "main_fn", ps[0].EntryPoint)
	assert.Equal(t, "MBPP/7", ps[0].TaskID)
}
