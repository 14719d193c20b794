package rulesreport

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/replay/rules"
	"github.com/dixit-bot/dixit/internal/replay/rules/swesympy"
)

// matrix writes one swe-sympy matrix: coders a0, a1 resolved, a2, a3 not; one test T
// that fails on the base and passes on the gold, passed by a0, a1 and a2.
func matrix(t *testing.T, dir, id string) {
	t.Helper()
	coder := func(name string, resolved bool) map[string]any {
		return map[string]any{"name": name, "source": "agentless-gpt4o", "resolved_only_source": false, "duplicate_of": "",
			"patch_sha256": "sha-" + name, "applies": true, "resolved": resolved, "published_label": "", "label_failures": []any{}}
	}
	m := map[string]any{"instance_id": id, "version": "1.12", "env": map[string]any{},
		"coders": []any{coder("a0", true), coder("a1", true), coder("a2", false), coder("a3", false)},
		"tests":  []any{map[string]any{"name": "T", "source": "itl-gpt4o-full", "model": "gpt-4o", "functions": []any{"test_t"}, "duplicate_of": "", "runnable": true, "reason": ""}},
		"rows": map[string]any{"base": []string{"fail"}, "gold": []string{"pass"},
			"a0": []string{"pass"}, "a1": []string{"pass"}, "a2": []string{"pass"}, "a3": []string{"fail"}},
		"env_cells": []any{}, "label_env": []any{}, "format": swesympy.Format,
		"label_check": map[string]any{"f2p_fail_on_base": true, "gold_passes": true}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644))
}

func TestRunWritesTheReport(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	matrix(t, dir, "sympy__sympy-1")
	matrix(t, dir, "sympy__sympy-2")
	var stdout bytes.Buffer
	req := Request{SWE: dir, Seed: 1, Panels: 20, Sizes: "3", Resamples: 50, Out: out}
	require.NoError(t, req.Run(context.Background(), &stdout))
	assert.Contains(t, stdout.String(), "swe-sympy (pool panels), 2 instances:")
	assert.Contains(t, stdout.String(), "wrote "+filepath.Join(out, "rules.md"))

	md, err := os.ReadFile(filepath.Join(out, "rules.md"))
	require.NoError(t, err)
	for _, want := range []string{"## Against the aims", "**swe-sympy (pool panels)**", "| seed | ",
		"resolved-only coders (moatless) left out of the pools: 0", "### K=3", "| oracle (any resolved coder) | 100.0% [100.0, 100.0]"} {
		assert.Contains(t, string(md), want)
	}
	var res Result
	js, err := os.ReadFile(filepath.Join(out, "rules.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(js, &res))
	require.Len(t, res.Reports, 1)
	row, ok := res.Reports[0].Row(3, "all")
	require.True(t, ok)
	// A panel of 3 from {a0 ✓, a1 ✓, a2 ✗, a3 ✗} holds one coder out. repro keeps T on every
	// panel; of the held-out coders only a3 fails it: caught = held-out a3 / held-out a2 or a3.
	loaded, err := swesympy.LoadDir(context.Background(), dir, swesympy.Options{})
	require.NoError(t, err)
	var a2, a3 int
	for _, panels := range rules.DrawUniform(loaded.Instances, 3, 1, 20) {
		for _, p := range panels {
			switch {
			case !slices.Contains(p, 2):
				a2++
			case !slices.Contains(p, 3):
				a3++
			}
		}
	}
	repro, _ := row.Rule(rules.Repro)
	assert.InDelta(t, float64(a3)/float64(a2+a3), repro.Caught.Value, 1e-12)
	assert.Equal(t, float64(a2+a3), repro.Caught.Over)
	assert.Equal(t, 0.0, repro.ResolvedFailed.Value)
	assert.Equal(t, 40, row.Panels)
}

func TestRunSaysWhatIsWrong(t *testing.T) {
	var stdout bytes.Buffer
	err := Request{Sizes: "3"}.Run(context.Background(), &stdout)
	assert.ErrorContains(t, err, "no corpus")
	err = Request{SWE: t.TempDir(), Sizes: "three"}.Run(context.Background(), &stdout)
	assert.ErrorContains(t, err, "rules: sizes")
	err = Request{SWE: t.TempDir(), Sizes: "3", Panels: 20}.Run(context.Background(), &stdout)
	assert.ErrorContains(t, err, "no *.json file")
}

func TestFormats(t *testing.T) {
	assert.Equal(t, "76.3% [72.6, 79.5]", pct(rules.Est{Value: 0.7634, Lo: 0.7261, Hi: 0.7949, Over: 10}))
	assert.Equal(t, "–", pct(rules.Est{}))
	assert.Equal(t, "−2.1 [−3.9, +0.3] pt", points(rules.Est{Value: -0.021, Lo: -0.039, Hi: 0.003}))
	assert.Equal(t, "Dixit (consensus of the seed rule)", PickName(rules.PickConsensus(rules.Seed)))
	assert.Equal(t, "hybrid (threshold+repro)", PickName(rules.PickHybrid(rules.ThresholdRepro)))
	assert.True(t, strings.HasPrefix(Request{SWE: "d", Sizes: "3"}.command(), "go run ./bench/rules"))
}
