package replay

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
)

// sandboxJudge is the real judge with the python contract, or a skip that says what is
// missing: bubblewrap, or Debian's /usr/bin/python3 with pytest (a pyenv python3 first
// on PATH often has no pytest, so /usr/bin goes first for the judge's lookup).
func sandboxJudge(t *testing.T) *ci.Local {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap (bwrap) is not installed: the judge's sandbox is needed to execute recorded code")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skipf("/usr/bin/python3 with pytest is needed to execute recorded code: %v", err)
	}
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	j, err := ci.NewLocal(ci.LocalOptions{Contract: ExecContract(), Sandbox: ci.SandboxBwrap, WorkDir: t.TempDir()})
	if err != nil {
		t.Skipf("bubblewrap does not work here: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	require.NoError(t, CheckJudge(context.Background(), j))
	return j
}

// Three real problems (testdata/exec.jsonl: coders that time out, coders that do not
// load, every non-CodeGen coder) run through the sandbox agree with the matrix, cell by cell.
func TestExecuteAgreesWithTheRecordedMatrix(t *testing.T) {
	j := sandboxJudge(t)
	ps, err := LoadFile(context.Background(), "testdata/exec.jsonl")
	require.NoError(t, err)
	rep, err := Execute(context.Background(), ps, ExecOptions{Judge: j, Reruns: 2})
	require.NoError(t, err)
	t.Logf("%d cells, %d agree, %d timeouts, %d environment (%v), %.1f s", rep.Cells, rep.Agree, rep.Timeouts, rep.Environment, rep.EnvironmentAt, rep.Seconds)
	want := 0
	for _, p := range ps {
		want += len(p.Coders) * len(p.Tests)
	}
	assert.Equal(t, want, rep.Cells+rep.Environment, "every cell compared, or set apart as the environment's")
	assert.Less(t, rep.Environment, want/10, "only programs importing modules absent here")
	// A slow program can run out of time on a loaded machine where it did not when
	// recorded: the judge classes that "timeout", never as a stable or flaky mismatch.
	slow := 0
	for _, d := range rep.Disagreements {
		assert.Equal(t, ClassTimeout, d.Class, "%s %s on %s: %s then %s", d.TaskID, d.Coder, d.Test, d.First, d.Confirm)
		slow++
	}
	assert.LessOrEqual(t, slow, 3, "a few slow cells at most")
	assert.Equal(t, rep.Cells, rep.Agree+slow)
	assert.Positive(t, rep.Timeouts, "the slice has coders that loop")
}

// A made-up problem with the matrix written wrong on purpose: the judge finds each
// wrong cell and says why.
func TestExecuteClassifiesDisagreements(t *testing.T) {
	j := sandboxJudge(t)
	p := Problem{
		TaskID: "made/0", EntryPoint: "f",
		Coders: []Coder{
			{ID: "right#0", Code: "def f(x):\n    return x + 1\n"},
			{ID: "loops#0", Code: "def f(x):\n    while True:\n        pass\n"},
			{ID: "lacks#0", Code: "import no_such_module_here\n\ndef f(x):\n    return x + 1\n"},
			{ID: "late#0", Code: "def f(x):\n    return x + 1\n\nimport no_such_module_here\n"},
			{ID: "broken#0", Code: "def f(x) return x\n"},
		},
		Tests: []Test{{ID: "t#0", Code: "assert f(1) == 2"}, {ID: "t#1", Code: "assert f(2) == 4"}},
		Pass: [][]bool{
			{false, false}, // t#0 passes: written wrong, every execution says so
			{true, false},  // t#0 runs out of time: written wrong
			{true, false},  // a module missing here: not a result
			{false, false}, // a module missing after f: not a result either
			{false, false}, // does not load: right
		},
	}
	rep, err := Execute(context.Background(), []Problem{p}, ExecOptions{Judge: j, Reruns: 3})
	require.NoError(t, err)
	assert.Equal(t, 6, rep.Cells, "the cells of lacks#0 and late#0 are not compared")
	assert.Equal(t, 4, rep.Environment)
	require.Len(t, rep.EnvironmentAt, 2)
	assert.Contains(t, rep.EnvironmentAt[0], "made/0 lacks#0: needs a module this python3 lacks")
	assert.Equal(t, 4, rep.Agree)
	assert.Equal(t, map[string]int{ClassStable: 1, ClassTimeout: 1}, rep.ByClass)
	require.Len(t, rep.Disagreements, 2)
	d := rep.Disagreements[0]
	assert.Equal(t, Disagreement{TaskID: "made/0", Coder: "right#0", Test: "t#0", Assert: "assert f(1) == 2",
		First: "pass", Confirm: "pass in all 3 runs", Class: ClassStable}, d)
	assert.Equal(t, "loops#0", rep.Disagreements[1].Coder)
	assert.Equal(t, "timeout", rep.Disagreements[1].First)
	assert.Equal(t, 2, rep.Timeouts, "both asserts of the loop")
}

// fakeJudge answers every job with one verdict, or fails.
type fakeJudge struct {
	v   ci.Verdict
	err error
}

func (f fakeJudge) Run(_ context.Context, _ int, jobs []ci.Job) ([]ci.Verdict, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := make([]ci.Verdict, len(jobs))
	for i := range out {
		out[i] = f.v
	}
	return out, nil
}

func twoCellProblem() []Problem {
	return []Problem{{TaskID: "T/0", Coders: []Coder{{ID: "a#0", Code: "x"}}, Tests: []Test{{ID: "t#0"}, {ID: "t#1"}},
		Pass: [][]bool{{true, false}}}}
}

// When the runner cannot run, or the judge fails, no cell is compared: the environment
// is never a test result.
func TestEnvironmentFailuresAreNeverResults(t *testing.T) {
	for name, j := range map[string]fakeJudge{
		"no pytest":    {v: ci.Verdict{Outcome: ci.Fail, Runs: 1, Output: "/usr/bin/python3: No module named pytest\n"}},
		"judge failed": {err: errors.New("sandbox: bwrap: setting up uid map: Permission denied")},
	} {
		t.Run(name, func(t *testing.T) {
			rep, err := Execute(context.Background(), twoCellProblem(), ExecOptions{Judge: j})
			require.NoError(t, err)
			assert.Zero(t, rep.Cells)
			assert.Zero(t, rep.Agree)
			assert.Equal(t, 2, rep.Environment)
			require.Len(t, rep.EnvironmentAt, 1)
			assert.Empty(t, rep.Disagreements)
		})
	}
}

func TestClassifyAConfirmingVerdict(t *testing.T) {
	tests := []struct {
		name    string
		v       ci.Verdict
		first   cell
		confirm string
		class   string
	}{
		{"passes every run, first passed", ci.Verdict{Outcome: ci.Pass, Runs: 5}, cellPass, "pass in all 5 runs", ClassStable},
		{"passes every run, first failed", ci.Verdict{Outcome: ci.Pass, Runs: 5}, cellFail, "pass in all 5 runs", ClassFlaky},
		{"passes every run, first timed out", ci.Verdict{Outcome: ci.Pass, Runs: 5}, cellTimeout, "pass in all 5 runs", ClassTimeout},
		{"fails after passing", ci.Verdict{Outcome: ci.Fail, Runs: 3, Output: "F   [100%]\n"}, cellPass, "passed 2 runs, then failed run 3 of 5", ClassFlaky},
		{"fails the first run again", ci.Verdict{Outcome: ci.Fail, Runs: 1, Output: "F   [100%]\n"}, cellFail, "fail", ClassStable},
		{"fails where it passed", ci.Verdict{Outcome: ci.Fail, Runs: 1, Output: "F   [100%]\n"}, cellPass, "fail", ClassFlaky},
		{"times out", ci.Verdict{Outcome: ci.Fail, Runs: 1, Output: "s   [100%]\n"}, cellFail, "timeout", ClassTimeout},
		{"times out in every run (a skip exits 0)", ci.Verdict{Outcome: ci.Fail, Runs: 5, Output: "s   [100%]\n"}, cellPass, "timeout", ClassTimeout},
		{"job timed out", ci.Verdict{Outcome: ci.Timeout, Runs: 1}, cellFail, "the job timed out", ClassTimeout},
		{"over a limit", ci.Verdict{Outcome: ci.OverLimit, Runs: 1}, cellFail, "over_limit", ClassEnvironment},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			confirm, _, class := classify(tc.v, tc.first, 5)
			assert.Equal(t, tc.confirm, confirm)
			assert.Equal(t, tc.class, class)
		})
	}
}

func TestParseProgress(t *testing.T) {
	out := ".F.s....xE                                                [ 50%]\n" +
		"..........                                                [100%]\n" +
		"-------- generated xml file: /tmp/.dixit-report --------\n3 failed, 16 passed, 1 skipped in 0.1s\n"
	got := parseProgress(out, 20)
	assert.Equal(t, []cell{cellPass, cellFail, cellPass, cellTimeout, cellPass, cellPass, cellPass, cellPass, cellEnvironment, cellFail},
		got[:10])
	assert.Equal(t, cellPass, got[19])
	// A run cut short leaves the rest unknown.
	short := parseProgress("..F\n", 5)
	assert.Equal(t, []cell{cellPass, cellPass, cellFail, cellUnknown, cellUnknown}, short)
}

// Progress characters read from a cut tail would land on the wrong asserts: none are read.
func TestProgressFromACutTailIsNotRead(t *testing.T) {
	tail := "e/site-packages/_pytest/main.py\n....F.....                     [100%]\n1 failed, 9 passed\n"
	assert.Equal(t, []cell{cellUnknown, cellUnknown}, parseProgress(tail, 2))
}
