package swebench

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/tripwire"
	"github.com/dixit-bot/dixit/internal/pytouch"
)

// TestEveryArmedLLMTestPatchCompiles applies every real LLM-written test patch of the
// corpus, arms each file it edits as the judge arms a diff proposal (twins of the test
// functions it adds or changes), and compiles the result with Python.
func TestEveryArmedLLMTestPatchCompiles(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("Debian's python3 is not installed")
	}
	dir := corpusDir(t)
	c, err := LoadCorpus(dir)
	require.NoError(t, err)
	bases, err := OpenBases(filepath.Join(dir, "bases.git"))
	require.NoError(t, err)
	out := t.TempDir()
	n, patches, twins, touched, methods := 0, 0, 0, 0, 0
	for _, inst := range c.Instances {
		require.NoError(t, c.LoadPatches(inst))
		for _, tp := range inst.Tests {
			patches++
			p, err := ParsePatch(tp.Name, tp.Diff)
			require.NoError(t, err)
			base, err := bases.BaseFiles(inst, p.Targets())
			require.NoError(t, err)
			fuzz := FuzzNone
			if tp.AppliesWith == "patch-fuzz3" {
				fuzz = Fuzz3
			}
			changes, err := p.Apply(base, fuzz)
			require.NoError(t, err)
			for f, ch := range changes {
				old, _ := base.File(f)
				var only []string
				for _, id := range pytouch.Touched(f, old, ch.data) {
					rest := strings.TrimPrefix(id, f+"::")
					if strings.Contains(rest, "::") {
						methods++
						continue
					}
					only = append(only, rest)
				}
				touched += len(only)
				a := tripwire.Arm(f, ch.data, rand.New(rand.NewPCG(1, 2)), append([]string{}, only...))
				for _, w := range a.Wires {
					if w.Twin != "" {
						twins++
					}
				}
				dst := filepath.Join(out, inst.ID, tp.Name, f)
				require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
				require.NoError(t, os.WriteFile(dst, a.Content, 0o644))
				n++
			}
		}
	}
	assert.Empty(t, uncompiled(t, out), "armed test files that do not compile")
	assert.Equal(t, touched, twins, "every touched test function gets a twin")
	t.Logf("%d files of %d test patches armed: %d touched test functions, %d twins (%d touched methods get none)", n, patches, touched, twins, methods)
}
