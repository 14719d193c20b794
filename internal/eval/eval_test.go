package eval_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/eval"
)

// buildCache keeps Go's compile cache across test runs (a cold one costs ~40 s of
// compiling the standard library); the session tests share it.
var buildCache = filepath.Join(os.TempDir(), "dixit-test-gocache")

const bench = "../../examples/bench"

// The bundled benchmark under every protocol with the real judge. The figures are those
// the population was written to give, checked by hand:
//   - dixit picks amy (correct): 3/3 hidden; its one vetted test (tom's upper bound) is
//     right, and uma's wrong expectation never entered the suite: precision 1/1;
//   - single's coder forgets the upper bound and wrote a test saying values above hi
//     pass through: accepted on its own tests, yet it fails hidden_above (2/3), and the
//     reference fails that test of its (precision 1/2);
//   - blind's coder fails the hidden check once, then passes it: 3/3.
func TestBundledBenchmarkEndToEnd(t *testing.T) {
	state := t.TempDir()
	var progress bytes.Buffer
	rep, err := eval.Run(context.Background(), eval.Options{Bench: bench, StateDir: state, BuildCache: buildCache, Progress: &progress})
	require.NoError(t, err)
	type figures struct {
		outcome, final, kind string
		hidden, precision    eval.Score
	}
	want := map[string]figures{
		"dixit":   {"TESTERS_EXHAUSTED", "amy", "vetted", eval.Score{Passed: 3, Total: 3}, eval.Score{Passed: 1, Total: 1}},
		"critics": {"ACCEPTED", "pat", "own", eval.Score{Passed: 3, Total: 3}, eval.Score{Passed: 1, Total: 1}},
		"tdg":     {"ACCEPTED", "ann", "designed", eval.Score{Passed: 3, Total: 3}, eval.Score{Passed: 1, Total: 1}},
		"blind":   {"ACCEPTED", "bea", "own", eval.Score{Passed: 3, Total: 3}, eval.Score{Passed: 1, Total: 1}},
		"single": {"ACCEPTED", "sol", "own", eval.Score{Passed: 2, Total: 3, Failed: []string{"hidden_above"}},
			eval.Score{Passed: 1, Total: 2, Failed: []string{"own_above_test"}}},
	}
	require.Len(t, rep.Runs, len(want))
	assert.Empty(t, rep.Skipped)
	for _, row := range rep.Runs {
		w := want[row.Protocol]
		got := figures{row.Outcome, row.Final, row.TestsKind, row.Hidden, row.Precision}
		assert.Equal(t, w, got, row.Protocol)
		assert.Equal(t, "clamp", row.Task)
		assert.Equal(t, w.hidden.Passed == w.hidden.Total, row.Solved, row.Protocol)
		assert.Positive(t, row.LLMCalls, row.Protocol)
		assert.Positive(t, row.JudgeExecutions+row.CacheHits, row.Protocol)
		assert.FileExists(t, row.Report)
		// Clamp's comparisons give a boundary and a negation mutant each; the boundary ones
		// are equivalent (x <= lo returns lo == x), so every suite kills the two negations.
		// sol's Clamp has no upper bound: two mutants, and hidden_above, failing on it,
		// cannot kill; its wrong own test passes on it, so it counts.
		require.NotNil(t, row.Mutation, row.Protocol)
		if row.Protocol == "single" {
			assert.Equal(t, [4]int{2, 1, 1, 1}, killedFigures(row.Mutation), row.Protocol)
			assert.Equal(t, 2, row.Mutation.Hidden.Used, "hidden tests passing on sol's code")
			continue
		}
		assert.Equal(t, [4]int{4, 2, 2, 2}, killedFigures(row.Mutation), row.Protocol)
	}
	dixit := rep.Runs[0].Mutation
	assert.Equal(t, [2]int{2, 1}, [2]int{dixit.Proposed.Tests, dixit.Proposed.Used}, "uma's wrong test fails on amy's code: it kills nothing")
	assert.Contains(t, progress.String(), "eval: task clamp, protocol critics: running…\n")
	assert.Contains(t, progress.String(), "eval: task clamp, protocol single: done: ACCEPTED, hidden 2/3, precision 0.50 (own tests)")

	// What eval writes reads back the same, and the page carries the plot inline.
	out := t.TempDir()
	paths, err := eval.Write(out, rep)
	require.NoError(t, err)
	require.Len(t, paths, 4)
	back, err := eval.ReadJSON(filepath.Join(out, "eval.json"))
	require.NoError(t, err)
	assert.Equal(t, rep, back)
	page, err := os.ReadFile(filepath.Join(out, "eval.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<svg")
	assert.Contains(t, string(page), "<td>single</td>")

	// The same command again resumes every run from its journal, with the same figures.
	again, err := eval.Run(context.Background(), eval.Options{Bench: bench, StateDir: state, BuildCache: buildCache, Protocols: []string{"single"}})
	require.NoError(t, err)
	require.Len(t, again.Runs, 1)
	assert.True(t, again.Runs[0].Resumed)
	assert.Equal(t, rep.Runs[4].Hidden, again.Runs[0].Hidden)
	assert.Equal(t, rep.Runs[4].Precision, again.Runs[0].Precision)
}

// A protocol a task has no agents for is skipped, with the directory to add.
func TestProtocolWithoutAgentsIsSkipped(t *testing.T) {
	dir := copyBench(t)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "clamp", "protocols", "critics")))
	rep, err := eval.Run(context.Background(), eval.Options{Bench: dir, StateDir: t.TempDir(), BuildCache: buildCache, Protocols: []string{"critics"}})
	require.NoError(t, err)
	assert.Empty(t, rep.Runs)
	require.Len(t, rep.Skipped, 1)
	assert.Equal(t, "critics", rep.Skipped[0].Protocol)
	assert.Contains(t, rep.Skipped[0].Why, "no agents for critics: add "+filepath.Join(dir, "clamp", "protocols", "critics"))
	assert.Contains(t, eval.Markdown(rep, ""), "- task clamp, protocol critics: no agents for critics")
}

func TestUnknownProtocolIsAnError(t *testing.T) {
	_, err := eval.Run(context.Background(), eval.Options{Bench: bench, StateDir: t.TempDir(), Protocols: []string{"dixit", "solo"}})
	require.ErrorContains(t, err, `unknown protocol "solo"`)
}

// killedFigures are a run's mutants and how many its tests, all proposed tests and the
// hidden tests kill.
func killedFigures(m *eval.Mutation) [4]int {
	return [4]int{m.Mutants, m.Tests.Killed, m.Proposed.Killed, m.Hidden.Killed}
}

// copyBench copies the bundled benchmark into a temporary directory to be edited.
func copyBench(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, filepath.WalkDir(bench, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(bench, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
	return dst
}

// tableRows returns the rows of the Markdown table whose header starts with header,
// header and rule included.
func tableRows(md, header string) [][]string {
	var rows [][]string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, header) {
			in = true
		}
		switch {
		case in && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, cells)
		case in:
			return rows
		}
	}
	return rows
}
