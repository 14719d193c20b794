package corpuseval_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/corpuseval"
	"github.com/dixit-bot/dixit/internal/replay/rules/rulesreport"
	"github.com/dixit-bot/dixit/internal/swebench"
)

const (
	corpus   = "../../../shared/data/swe-sympy"
	instance = "sympy__sympy-17655" // computed in the current format
	older    = "sympy__sympy-14976" // in swe-matrix/2, a kept format
)

// A matrix already computed from the same inputs is read back, not run again (in the
// current format or a kept one), and the measurement covers the instances asked for only,
// though the folder holds others.
func TestEvalReadsTheCachedMatrixAndMeasuresTheCorpusInstancesOnly(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("the swe-sympy corpus is not beside the repository")
	}
	matrices := t.TempDir()
	for _, id := range []string{instance, older, "sympy__sympy-15017"} {
		data, err := os.ReadFile(filepath.Join("../../data/swe-sympy-matrix", id+".json"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(matrices, id+".json"), data, 0o644))
	}
	out := t.TempDir()
	var stdout bytes.Buffer
	req := corpuseval.Request{Corpus: corpus, Instances: []string{instance, older}, Matrices: matrices,
		Judge: swebench.Options{Sandbox: "none"}, Command: "bot eval --corpus test",
		Rules: rulesreport.Request{Seed: 1, Panels: 5, Sizes: "3", Resamples: 50, Out: out}}
	require.NoError(t, req.Run(context.Background(), &stdout), stdout.String())
	text := stdout.String()
	assert.Contains(t, text, "labels: 2 of 2 instances computed, 74 coders (22 resolve), 33 test patches; controls hold on 2")
	assert.NotContains(t, text, ": done in", "the cached matrices are not run again")
	assert.Contains(t, text, "swe-sympy (pool panels), 2 instances:", "not the third matrix of the folder")
	assert.Contains(t, text, "bot vet's gate (vet_gate: threshold, the default): catches ")
	md, err := os.ReadFile(filepath.Join(out, "rules.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "`bot eval --corpus test`")
}

// An instance with no matrix is an error that names it and says the command retries it;
// the figures are not printed over fewer instances than asked.
func TestLabelsRefuseAnInstanceWithoutAMatrix(t *testing.T) {
	sum := &swebench.Summary{Instances: []swebench.InstanceSummary{
		{ID: "a", F2PFailOnBase: true, GoldPasses: true},
		{ID: "b", Error: "the base does not check out"},
		{ID: "c", F2PFailOnBase: true, GoldPasses: false},
	}, Totals: swebench.Totals{Instances: 3, Done: 2, Failed: 1, ControlsOK: 1}}
	var out bytes.Buffer
	err := corpuseval.Labels(&out, sum)
	require.Error(t, err)
	assert.Equal(t, "eval: 1 instances have no matrix (the same command retries them): b: the base does not check out", err.Error())
	assert.Contains(t, out.String(), "left out of the figures, their labels not trustworthy: c (FAIL_TO_PASS fail on the base: true; the gold patch passes its tests: false)")
}
