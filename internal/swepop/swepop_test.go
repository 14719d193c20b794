package swepop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/agent/scripted"
	"github.com/dixit-bot/dixit/internal/swebench"
	"github.com/dixit-bot/dixit/internal/swepop"
)

// corpus is the swe-sympy corpus beside the module root, or the test skips.
func corpus(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", "swe-sympy"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "instances.jsonl")); err != nil {
		t.Skipf("the swe-sympy corpus is not beside the module root: %v", err)
	}
	return dir
}

// An instance written as a population loads as one: every coder's diff applies to the
// base, every tester's diff is a proposal the judge takes, the duplicates are left out
// with why, the held-out patches are the next distinct ones, and the labels are beside.
func TestAnInstanceBecomesAPopulationThatLoads(t *testing.T) {
	dir := corpus(t)
	const id = "sympy__sympy-23824"
	c, err := swebench.LoadCorpus(dir, id)
	require.NoError(t, err)
	inst := c.Instances[0]
	require.NoError(t, c.LoadPatches(inst))
	bases, err := swebench.OpenBases(filepath.Join(dir, "bases.git"))
	require.NoError(t, err)
	out := t.TempDir()
	labels := swepop.Labels(filepath.Join("..", "..", "data", "swe-sympy-matrix", id+".json"))
	require.NotNil(t, labels, "the instance's pass matrix is in data/swe-sympy-matrix")
	req := swepop.Request{Corpus: c, Bases: bases, Coders: 5, HeldOut: 2, Out: out, Labels: labels}
	w, err := req.Write(inst)
	require.NoError(t, err)

	assert.Equal(t, []string{"agentless-gpt4o-0", "agentless-gpt4o-1", "agentless-gpt4o-2", "agentless-gpt4o-3", "agentless-gpt4o-4"}, w.Coders)
	assert.Equal(t, []string{"held-out/agentless-gpt4o-5.diff", "held-out/agentless-gpt4o-6.diff"}, w.HeldOut)
	assert.Len(t, w.Testers, 12)
	assert.ElementsMatch(t, []string{"itl-gpt4o-testLoc: the same test as itl-gpt4o-none", "otterplus-gpt4o: the same test as otter-gpt4o"}, w.Left)

	pop, err := scripted.Load(w.Dir)
	require.NoError(t, err, "the population loads: every diff applies")
	assert.Equal(t, strings.TrimSpace(inst.ProblemStatment), strings.TrimSpace(pop.Spec))
	assert.Equal(t, 5, pop.Settings.Coders)
	assert.Equal(t, "python", pop.Settings.Test.Toolchain)
	for _, tester := range pop.Testers {
		require.Len(t, tester.Diffs, 1)
		require.NotNil(t, tester.Diffs[0], "%s's proposal is a diff", tester.Name)
		assert.NotEmpty(t, tester.Diffs[0].Select, "%s's proposal runs the functions it adds", tester.Name)
	}
	assert.Len(t, w.Replacements, 3, "the three patches after the held-out ones stand by as fresh coders")
	_, ok := pop.Replacement("agentless_gpt4o2_2")
	assert.True(t, ok, "a human's replace of the third coder brings in the next unused patch")
	data, err := os.ReadFile(filepath.Join(w.Dir, "held-out", "labels.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"agentless-gpt4o-6": "resolved"`)

	_, err = req.Write(inst)
	assert.ErrorContains(t, err, "already exists", "a population is never written over")
}
