package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEvalReplayWritesItsReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "replay")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "--replay", "--data", "../../internal/replay/testdata/slice.jsonl",
		"--panels", "3", "--seed", "7", "--out", out}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	for _, want := range []string{
		"loading problems from ../../internal/replay/testdata/slice.jsonl…",
		"loaded 4 problems",
		"panel kind diverse, K=3: 12 panels on 4 problems",
		"panel kind same:agentcoder/gpt-3.5-turbo-1106, K=5: 9 panels on 3 problems",
		"diverse, on the 2 of 4 problems that can have a panel at every K:",
		"  K=9  precision 100.0% [100.0, 100.0]",
		"how to choose N and the threshold (diverse panels):",
		"wrote " + filepath.Join(out, "replay.svg"),
	} {
		assert.Contains(t, stdout.String(), want)
	}
	for _, f := range []string{"replay.md", "replay.json", "replay.svg"} {
		info, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err)
		assert.Positive(t, info.Size(), f)
	}
}

// The second corpus replays through the same command: its own same-source row, none of
// HumanEval's, and a report titled with its name.
func TestEvalReplaysTheMBPPCorpus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "replay")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "--replay", "--data", "../../data/mbpp-replay",
		"--panels", "2", "--sizes", "3,5", "--thresholds", "0.6", "--out", out}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	assert.Contains(t, stdout.String(), "loading problems from "+filepath.Join("../../data/mbpp-replay", "problems.jsonl"))
	assert.Contains(t, stdout.String(), "loaded 257 problems")
	assert.Contains(t, stdout.String(), "panel kind same:agentcoder/gpt-3.5-turbo, K=3: 124 panels on 62 problems")
	assert.NotContains(t, stdout.String(), "codet/codegen-16b")
	md, err := os.ReadFile(filepath.Join(out, "replay.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "# Replay of the Dixit rule on mbpp-replay\n")
}

// bot eval on the bundled benchmark, one protocol: progress lines, the four files, and the
// figures the population was written to give (docs/eval.md).
func TestEvalRunsTheBenchmark(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "eval")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "--bench", "../../examples/bench", "--protocols", "single",
		"--state", t.TempDir(), "--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache"), "--out", out}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	for _, want := range []string{
		"eval: task clamp, protocol single: running…\n",
		"eval: task clamp, protocol single: done: ACCEPTED, hidden 2/3, precision 0.50 (own tests)",
		"wrote " + filepath.Join(out, "eval.html"),
		"1 runs, 0 skipped",
	} {
		assert.Contains(t, stdout.String(), want)
	}
	md, err := os.ReadFile(filepath.Join(out, "eval.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| single | 1 | 0/1 | 0.67 (2/3) | 0.50 (1/2) |")
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown protocol", []string{"eval", "--protocols", "dixit,solo"}, `unknown protocol "solo"`},
		{"missing benchmark", []string{"eval", "--bench", "nope"}, "eval: --bench nope: no such file or directory"},
		{"missing data", []string{"eval", "--replay", "--data", "nope.jsonl"}, "eval: --data nope.jsonl: no such file or directory"},
		{"folder without data", []string{"eval", "--replay", "--data", "../../docs"}, "eval: --data ../../docs/problems.jsonl: no such file or directory"},
		{"no panels", []string{"eval", "--replay", "--data", "../../internal/replay/testdata/slice.jsonl", "--panels", "0"}, "panels per problem: 0"},
		{"stray argument", []string{"eval", "--replay", "extra"}, `unexpected argument "extra"`},
		{"execute without replay", []string{"eval", "--execute"}, "--execute needs --replay"},
		{"negative problems", []string{"eval", "--replay", "--execute", "--problems", "-1"}, "eval: --problems -1: want 0 (all) or more"},
		{"bad size", []string{"eval", "--replay", "--sizes", "3,one"}, `eval: --sizes: panel size "one" in "3,one"`},
		{"bad threshold", []string{"eval", "--replay", "--thresholds", "0.6,0.95"}, `eval: --thresholds: threshold "0.95" in "0.6,0.95": threshold 95%: want 50% to 80%`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, &stdout, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
