package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/vet"
)

// The repository's own tests guard the run: bob breaks one while implementing the
// change and is told which, cal breaks it too and deletes it from its tree (the base's
// copy runs anyway), and a tester's test placed in the package passes on the base, so it
// guards existing behaviour, while the other tests the change.
func TestExistingTestsGuardTheCoders(t *testing.T) {
	t.Parallel()
	const pop = "testdata/existing"
	out, err := session.Run(context.Background(), session.Options{
		Population: pop, StateDir: sharedState, BuildCache: buildCache, RunID: fmt.Sprintf("existing-%d", os.Getpid()),
	})
	require.NoError(t, err)
	sum := out.Summary

	require.NotNil(t, sum.Existing)
	assert.Equal(t, []string{"example.com/calc/calc.TestAdd", "example.com/calc/calc.TestAddNegative", "example.com/calc/other.TestTwice"}, sum.Existing.Set.Tests)
	assert.Equal(t, 2, sum.Existing.Set.Runs)

	var told []string
	for _, ev := range sum.Events {
		if ev.Kind == orchestrate.EvExisting && strings.HasPrefix(ev.Detail, "breaks") {
			told = append(told, ev.Agent+": "+ev.Detail)
		}
	}
	assert.ElementsMatch(t, []string{"bob: breaks example.com/calc/calc.TestAddNegative", "cal: breaks example.com/calc/calc.TestAddNegative"}, told)
	for _, c := range sum.Coders {
		assert.Empty(t, c.Breaks, "%s's final tree keeps the existing tests passing", c.Name)
	}

	byPath := map[string]runfile.VettedTest{}
	for _, v := range sum.Vetted {
		byPath[v.Path] = v
	}
	require.Contains(t, byPath, "calc/calc_mul_test.go", "the tester's test went where it belongs")
	require.Contains(t, byPath, "calc/calc_zero_test.go")
	assert.Equal(t, runfile.TestsTheChange, byPath["calc/calc_mul_test.go"].OnBase.Kind())
	assert.Equal(t, runfile.GuardsExisting, byPath["calc/calc_zero_test.go"].OnBase.Kind())

	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## The repository's own tests")
	assert.Contains(t, string(md), "3 existing tests passed in every one of 2 runs")
	assert.Contains(t, string(md), "1 passes there: it guards behaviour the repository already had")

	// bot vet runs them on a patch: one that breaks an existing test fails, and says which.
	patch, err := gitstate.ReadDir(pop + "/coders/bob/1")
	require.NoError(t, err)
	vetted, err := session.Run(context.Background(), session.Options{
		Population: pop, StateDir: sharedState, BuildCache: buildCache, RunID: fmt.Sprintf("existing-vet-%d", os.Getpid()), Patch: patch,
	})
	require.NoError(t, err)
	v := vetted.Summary.Vet
	require.NotNil(t, v)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Contains(t, v.Why, "The patch breaks 1 of the repository's own tests that pass on the base (first: example.com/calc/calc.TestAddNegative")
	require.Len(t, vetted.Summary.Existing.Patch, 1)
}

// A Python suite can take an hour (sympy's does), so under existing_tests: affected the
// base's own tests run only as the coders' changes reach them: the file beside the
// changed module runs on the base, the unrelated one does not until a patch under review
// changes its module, and a coder or a patch breaking a reached test is told which.
func TestPythonBaseTestsRunAsChangesReachThem(t *testing.T) {
	t.Parallel()
	pop := t.TempDir()
	writeIn := func(root, rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write := func(rel, content string) { writeIn(pop, rel, content) }
	write("spec.md", "`calc.ops.halve(n)` raises NotImplementedError. Make it return n // 2, negative numbers included.\n")
	write("dixit.yml", "coders: 3\ntesters: 1\nreruns: 1\nmax_rounds: 4\nexisting_tests: affected\ntest:\n  preset: python\n  prepare: \"\"\n  timeout: 30s\n")
	ops := "def inc(n):\n    return n + 1\n\n\ndef halve(n):\n    raise NotImplementedError\n"
	base := map[string]string{
		"calc/__init__.py": "", "calc/tests/__init__.py": "", "text/__init__.py": "", "text/tests/__init__.py": "",
		"calc/ops.py":              ops,
		"calc/tests/test_ops.py":   "from calc.ops import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\ndef test_inc_negative():\n    assert inc(-3) == -2\n",
		"text/shout.py":            "def shout(s):\n    return s.upper() + '!'\n",
		"text/tests/test_shout.py": "from text.shout import shout\n\n\ndef test_shout():\n    assert shout('hi') == 'HI!'\n",
	}
	treeIn := func(root string, changes map[string]string) {
		for rel, content := range base {
			if c, ok := changes[rel]; ok {
				content = c
			}
			writeIn(root, rel, content)
		}
	}
	tree := func(dir string, changes map[string]string) { treeIn(filepath.Join(pop, dir), changes) }
	right := strings.Replace(ops, "raise NotImplementedError", "return n // 2", 1)
	tree("base", nil)
	tree("coders/ada/1", map[string]string{"calc/ops.py": right})
	tree("coders/bob/1", map[string]string{"calc/ops.py": strings.Replace(right, "n + 1", "abs(n) + 1", 1)})
	tree("coders/bob/2", map[string]string{"calc/ops.py": right}) // told, it fixes inc
	tree("coders/cal/1", map[string]string{"calc/ops.py": strings.Replace(ops, "raise NotImplementedError", "return int(n / 2)", 1)})
	write("testers/tia/1/calc/tests/test_halve.py", "from calc.ops import halve\n\n\ndef test_halve_negative_odd():\n    assert halve(-3) == -2\n")

	state := t.TempDir()
	out, err := session.Run(context.Background(), session.Options{Population: pop, StateDir: state, BuildCache: buildCache})
	require.NoError(t, err)
	e := out.Summary.Existing
	require.NotNil(t, e)
	assert.True(t, e.AsReached)
	assert.Equal(t, []string{"calc/tests/test_ops.py"}, e.Scope, "only the file the coders' change reaches ran on the base")
	assert.Equal(t, []string{"calc/tests/test_ops.py::test_inc", "calc/tests/test_ops.py::test_inc_negative"}, e.Set.Tests)
	var told []string
	for _, ev := range out.Summary.Events {
		if ev.Kind == orchestrate.EvExisting && strings.HasPrefix(ev.Detail, "breaks") {
			told = append(told, ev.Agent+": "+ev.Detail)
		}
	}
	assert.Equal(t, []string{"bob: breaks calc/tests/test_ops.py::test_inc_negative"}, told)
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "run on the base when a change first reached them: 1 file of the suite")

	// A patch that also breaks text.shout: its change reaches text/tests/test_shout.py,
	// which then runs on the base, and the patch fails naming its test.
	patchDir := t.TempDir()
	treeIn(patchDir, map[string]string{"calc/ops.py": right, "text/shout.py": "def shout(s):\n    return s.upper()\n"})
	patch, err := gitstate.ReadDir(patchDir)
	require.NoError(t, err)
	vetted, err := session.Run(context.Background(), session.Options{Population: pop, StateDir: state, BuildCache: buildCache, Patch: patch})
	require.NoError(t, err)
	v := vetted.Summary.Vet
	require.NotNil(t, v)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Contains(t, v.Why, "text/tests/test_shout.py::test_shout")
	assert.Equal(t, []string{"calc/tests/test_ops.py", "text/tests/test_shout.py"}, vetted.Summary.Existing.Scope)
}
