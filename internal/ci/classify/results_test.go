package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
)

// demoTests are the tests of testdata/results-v1.json: proposals of the demo population.
func demoTests(t testing.TB) []ci.Test {
	t.Helper()
	var tests []ci.Test
	for _, p := range []string{"ivy/1", "ivy/3", "jun/1", "jun/2"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "semver", "testers", p, "compare_test.go"))
		require.NoError(t, err)
		tests = append(tests, ci.Test{ID: strings.ReplaceAll(p, "/", "_"), Content: data})
	}
	return tests
}

func goodExpect(t testing.TB) Expect {
	return Expect{Run: "semver-6119c56a", Batch: "b-0007", Coder: "basil",
		Tree: "fa13265efb2ced0c35a6a4c8b00a0fced9589a0b", Reruns: 20, Tests: demoTests(t)}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func TestParseResultsReadsTheDocumentedExample(t *testing.T) {
	res, err := ReadResults(bytes.NewReader(readFixture(t, "results-v1.json")), goodExpect(t))
	require.NoError(t, err)
	require.Len(t, res.Tests, 4)
	verdicts, err := res.Verdicts(demoTests(t))
	require.NoError(t, err)
	assert.Equal(t, ci.Verdict{Outcome: ci.Pass, Runs: 20, Seconds: 2.983}, verdicts[0])
	assert.Equal(t, ci.Fail, verdicts[1].Outcome)
	assert.Equal(t, 1, verdicts[1].Runs)
	assert.Equal(t, ci.BuildFailed, verdicts[2].Outcome)
	assert.Equal(t, ci.Timeout, verdicts[3].Outcome)
	assert.Equal(t, 7, res.Tests[3].FailedRun)

	// What Marshal writes, ParseResults reads back unchanged.
	data, err := res.Marshal()
	require.NoError(t, err)
	again, err := ParseResults(data)
	require.NoError(t, err)
	assert.Equal(t, res, again)
}

func TestAJudgeFailureIsNeverATestFailure(t *testing.T) {
	want := goodExpect(t)
	want.Coder, want.Run = "amber", ""
	_, err := ReadResults(bytes.NewReader(readFixture(t, "results-error-v1.json")), want)
	require.ErrorIs(t, err, ErrJudgeFailed)
	assert.Contains(t, err.Error(), "Permission denied")
}

// edit returns the example with one change made to its decoded form.
func edit(t testing.TB, change func(m map[string]any)) []byte {
	var m map[string]any
	require.NoError(t, json.Unmarshal(readFixture(t, "results-v1.json"), &m))
	change(m)
	data, err := json.Marshal(m)
	require.NoError(t, err)
	return data
}

func test(m map[string]any, i int) map[string]any { return m["tests"].([]any)[i].(map[string]any) }

// A coder whose tree cannot be prepared, or that tampered, has verdicts of its own: they
// travel back from a runner like any other, so the batch's other coders keep theirs.
func TestPrepareFailedAndTamperedVerdictsAreResults(t *testing.T) {
	data := edit(t, func(m map[string]any) {
		test(m, 2)["outcome"] = "prepare_failed"
		test(m, 1)["outcome"] = "tampered"
	})
	res, err := ParseResults(data)
	require.NoError(t, err)
	assert.Equal(t, ci.PrepareFailed, res.Tests[2].Verdict().Outcome)
	assert.Equal(t, ci.Tampered, res.Tests[1].Verdict().Outcome)
	r := resultFrom(ci.Test{ID: "x"}, ci.Verdict{Outcome: ci.PrepareFailed, Output: "prepare: the prepare failed"})
	assert.Zero(t, r.FailedRun, "a prepare that failed ran nothing")
}

func TestParseResultsRefusesMalformedFiles(t *testing.T) {
	good := readFixture(t, "results-v1.json")
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not JSON", []byte("{"), "invalid JSON"},
		{"empty", nil, "invalid JSON"},
		{"a list", []byte(`[]`), "invalid JSON"},
		{"no schema", edit(t, func(m map[string]any) { delete(m, "schema") }), "no schema field"},
		{"other schema", edit(t, func(m map[string]any) { m["schema"] = "dixit.classify/v2" }), `schema "dixit.classify/v2", want "dixit.classify/v1"`},
		{"unknown field", edit(t, func(m map[string]any) { m["verdict"] = "pass" }), `unknown field "verdict"`},
		{"unknown field in a test", edit(t, func(m map[string]any) { test(m, 0)["exit"] = 0 }), `unknown field "exit"`},
		{"trailing data", append(append([]byte{}, good...), []byte(`{}`)...), "after top-level value"},
		{"too large", append(append([]byte{}, good...), bytes.Repeat([]byte(" "), MaxResultsSize)...), "larger than"},
		{"not UTF-8", []byte("{\"schema\": \"\xff\"}"), "UTF-8"},
		{"no tests", edit(t, func(m map[string]any) { delete(m, "tests") }), "tests: missing"},
		{"empty tests", edit(t, func(m map[string]any) { m["tests"] = []any{} }), "0 verdicts"},
		{"bad tree", edit(t, func(m map[string]any) { m["tree"] = "HEAD" }), "git tree hash"},
		{"bad coder", edit(t, func(m map[string]any) { m["coder"] = "../x" }), "coder"},
		{"bad reruns", edit(t, func(m map[string]any) { m["reruns"] = 0 }), "reruns 0"},
		{"negative seconds", edit(t, func(m map[string]any) { test(m, 0)["seconds"] = -1 }), "seconds"},
		{"no isolation", edit(t, func(m map[string]any) { delete(m, "isolation") }), "isolation"},
		{"unknown outcome", edit(t, func(m map[string]any) { test(m, 0)["outcome"] = "flaky" }), `outcome "flaky"`},
		{"short pass", edit(t, func(m map[string]any) { test(m, 0)["runs"] = 19 }), "a pass runs all 20 runs"},
		{"fail without its run", edit(t, func(m map[string]any) { delete(test(m, 1), "failed_run") }), "failing run"},
		{"fail past reruns", edit(t, func(m map[string]any) { test(m, 1)["runs"] = 21; test(m, 1)["failed_run"] = 21 }), "failing run"},
		{"build failure that ran", edit(t, func(m map[string]any) { test(m, 2)["runs"] = 1 }), "a failed build or prepare runs nothing"},
		{"prepare failure that ran", edit(t, func(m map[string]any) { test(m, 2)["outcome"] = "prepare_failed"; test(m, 2)["runs"] = 1 }), "a failed build or prepare runs nothing"},
		{"tampered without its run", edit(t, func(m map[string]any) { test(m, 1)["outcome"] = "tampered"; delete(test(m, 1), "failed_run") }), "the tampered run"},
		{"duplicate test", edit(t, func(m map[string]any) { test(m, 1)["id"] = "ivy_1" }), "appears twice"},
		{"bad test id", edit(t, func(m map[string]any) { test(m, 1)["id"] = "../../x" }), "id:"},
		{"bad sha256", edit(t, func(m map[string]any) { test(m, 1)["sha256"] = "abc" }), "sha256"},
		{"huge output", edit(t, func(m map[string]any) { test(m, 1)["output"] = strings.Repeat("x", 64<<10) }), "output"},
		{"error with verdicts", edit(t, func(m map[string]any) { m["error"] = "disk full" }), "a failed judge gives none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseResults(c.data)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "results.json: "), "errors name the file: %v", err)
		})
	}
}

func TestValidateComparesWithTheBatch(t *testing.T) {
	res, err := ParseResults(readFixture(t, "results-v1.json"))
	require.NoError(t, err)
	cases := []struct {
		name   string
		change func(e *Expect)
		want   string
	}{
		{"other run", func(e *Expect) { e.Run = "other" }, `run "semver-6119c56a", want "other"`},
		{"other batch", func(e *Expect) { e.Batch = "b-0008" }, `batch "b-0007", want "b-0008"`},
		{"other coder", func(e *Expect) { e.Coder = "cedar" }, `coder "basil", want "cedar"`},
		{"other tree", func(e *Expect) { e.Tree = strings.Repeat("0", 40) }, "judged tree fa13265e"},
		{"other reruns", func(e *Expect) { e.Reruns = 5 }, "reruns 20, want 5"},
		{"verdict for an unknown test", func(e *Expect) { e.Tests = e.Tests[1:] }, `a verdict for test "ivy_1", which was not asked for`},
		{"missing test", func(e *Expect) { e.Tests = append(e.Tests, ci.Test{ID: "kai_1", Content: []byte("x")}) }, `no verdict for test "kai_1"`},
		{"other content", func(e *Expect) { e.Tests[0].Content = []byte("package semver\n") }, `test "ivy_1" was judged with content`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := goodExpect(t)
			c.change(&want)
			err := res.Validate(want)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.False(t, errors.Is(err, ErrJudgeFailed))
		})
	}
	want := goodExpect(t)
	want.Run, want.Tree = "", ""
	assert.NoError(t, res.Validate(want), "an empty run or tree is not checked")
}

// FuzzParseResults: whatever the bytes, ParseResults does not panic, and what it accepts
// survives a round trip through Marshal unchanged.
func FuzzParseResults(f *testing.F) {
	for _, name := range []string{"results-v1.json", "results-error-v1.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseResults(data)
		if err != nil {
			return
		}
		out, err := res.Marshal()
		if err != nil {
			t.Fatalf("marshal accepted results: %v", err)
		}
		again, err := ParseResults(out)
		if err != nil {
			t.Fatalf("accepted results do not read back: %v\n%s", err, out)
		}
		if !again.Started.Equal(res.Started) {
			t.Fatalf("started changed: %v != %v", again.Started, res.Started)
		}
		again.Started = res.Started
		if len(again.Tests) != len(res.Tests) || again.Tree != res.Tree || again.Error != res.Error {
			t.Fatalf("round trip changed the results")
		}
		for i := range res.Tests {
			if again.Tests[i] != res.Tests[i] {
				t.Fatalf("round trip changed test %d: %+v != %+v", i, again.Tests[i], res.Tests[i])
			}
		}
	})
}
