package swebench

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/pytouch"
)

// The tests a test patch touches, read from the diff by pytouch (what the judge runs
// for a tester's diff), are the ones the corpus lists for it: every real LLM-written
// test patch of swe-sympy but one: itl-gpt4o-full of sympy-20801 indents its new test
// inside test_is_ge_le, which the corpus counts as touching nothing and pytouch as a
// change to test_is_ge_le (its code did change).
func TestTouchedAgreesWithTheCorpus(t *testing.T) {
	dir := corpusDir(t)
	c, err := LoadCorpus(dir)
	require.NoError(t, err)
	bases, err := OpenBases(filepath.Join(dir, "bases.git"))
	require.NoError(t, err)
	patches, agree := 0, 0
	for _, inst := range c.Instances {
		require.NoError(t, c.LoadPatches(inst))
		for _, tp := range inst.Tests {
			p, err := ParsePatch(tp.Name, tp.Diff)
			require.NoError(t, err)
			base, err := bases.BaseFiles(inst, p.Targets()) // the files it edits, no more
			require.NoError(t, err)
			fuzz := FuzzNone
			if tp.AppliesWith == "patch-fuzz3" {
				fuzz = Fuzz3
			}
			changes, err := p.Apply(base, fuzz)
			require.NoError(t, err, "%s %s", inst.ID, tp.Name)
			var got []string
			for _, f := range sortedKeys(changes) {
				old, _ := base.File(f)
				for _, id := range pytouch.Touched(f, old, changes[f].data) {
					got = append(got, strings.TrimPrefix(id, f+"::"))
				}
			}
			want := slices.Clone(tp.TouchedTests)
			if inst.ID == "sympy__sympy-20801" && tp.Name == "itl-gpt4o-full" {
				want = []string{"test_is_ge_le"}
			}
			slices.Sort(got)
			slices.Sort(want)
			patches++
			if assert.Equal(t, want, got, "%s %s", inst.ID, tp.Name) {
				agree++
			}
		}
	}
	t.Logf("%d of %d test patches: the touched tests agree", agree, patches)
}
