package scripted_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/agent/scripted"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// population writes a minimal valid population: 3 coders (a: 2 versions), 1 tester.
func population(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("spec.md", "Do the thing.\n")
	write("dixit.yml", "coders: 3\ntesters: 1\n")
	write("base/go.mod", "module x\n")
	write("coders/a/1/x.go", "package x // v1\n")
	write("coders/a/2/x.go", "package x // v2\n")
	write("coders/b/1/x.go", "package x\n")
	write("coders/c/1/x.go", "package x\n")
	write("testers/t/1/x_test.go", "package x // test 1\n")
	return dir
}

func TestLoadRejectsMalformedPopulations(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(dir string) error
		want   string
	}{
		{"no spec", func(d string) error { return os.Remove(filepath.Join(d, "spec.md")) }, "spec.md"},
		{"blank spec", func(d string) error { return os.WriteFile(filepath.Join(d, "spec.md"), []byte(" \n"), 0o644) }, "spec.md must hold a spec"},
		{"bad settings", func(d string) error {
			return os.WriteFile(filepath.Join(d, "dixit.yml"), []byte("coders: 3\nflavour: x\n"), 0o644)
		}, `unknown key "flavour"`},
		{"count mismatch", func(d string) error { return os.RemoveAll(filepath.Join(d, "coders", "c")) }, "dixit.yml says coders: 3, but coders/ holds 2"},
		{"no base", func(d string) error { return os.RemoveAll(filepath.Join(d, "base")) }, "base/ must be a directory"},
		{"gap in versions", func(d string) error {
			return os.Rename(filepath.Join(d, "coders", "a", "2"), filepath.Join(d, "coders", "a", "3"))
		}, "coders/a: version 2 is missing"},
		{"odd version name", func(d string) error { return os.Mkdir(filepath.Join(d, "coders", "a", "v3"), 0o755) }, "coders/a/v3: expected directories named 1, 2, 3"},
		{"bad agent name", func(d string) error {
			return os.Rename(filepath.Join(d, "coders", "c"), filepath.Join(d, "coders", "C-1"))
		}, "coders/C-1: agent names"},
		{"two files in a proposal", func(d string) error {
			return os.WriteFile(filepath.Join(d, "testers", "t", "1", "more_test.go"), nil, 0o644)
		}, "testers/t/1: a proposal is exactly one regular file (found 2 entries)"},
		{"same name twice", func(d string) error {
			return os.Rename(filepath.Join(d, "testers", "t"), filepath.Join(d, "testers", "a"))
		}, `"a" is both a coder and a tester`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := population(t)
			require.NoError(t, tc.mutate(dir))
			_, err := scripted.Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestScriptedAgentsDrawInOrderAndRollBack(t *testing.T) {
	ctx := context.Background()
	pop, err := scripted.Load(population(t))
	require.NoError(t, err)
	ws, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)

	coder := scripted.NewCoder(ws, "r1", pop.Coders[0])
	content := func(commit string) string {
		files, err := ws.Files(commit)
		require.NoError(t, err)
		require.Len(t, files, 1)
		return string(files[0].Content)
	}
	c1, err := coder.Solve(ctx, orchestrate.Turn{Message: "go", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, "package x // v1\n", content(c1))
	cp, err := coder.Save(ctx)
	require.NoError(t, err)
	c2, err := coder.Solve(ctx, orchestrate.Turn{Message: "again", Draw: 2})
	require.NoError(t, err)
	assert.Equal(t, "package x // v2\n", content(c2))
	c3, err := coder.Solve(ctx, orchestrate.Turn{Message: "again", Draw: 3})
	require.NoError(t, err)
	assert.Equal(t, "package x // v2\n", content(c3), "the last version repeats")

	require.NoError(t, coder.Restore(ctx, cp))
	head, _, err := ws.Ref("refs/dixit/r1/coders/a")
	require.NoError(t, err)
	assert.Equal(t, c1, head, "a rollback moves the hidden ref back")
	ws1, err := coder.Workspace(ctx)
	require.NoError(t, err)
	assert.Equal(t, c1, ws1)

	// A fresh agent (a restarted process) restores the same state from the workshop.
	again := scripted.NewCoder(ws, "r1", pop.Coders[0])
	require.NoError(t, again.Restore(ctx, cp))
	ws2, err := again.Workspace(ctx)
	require.NoError(t, err)
	assert.Equal(t, c1, ws2)

	tester := scripted.NewTester(ws, "r1", pop.Testers[0])
	p, err := tester.Propose(ctx, orchestrate.Turn{Message: "a test please", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, "package x // test 1\n", string(p.Content))
	p, err = tester.Propose(ctx, orchestrate.Turn{Message: "another", Draw: 2})
	require.NoError(t, err)
	assert.True(t, p.None, "after its last proposal a scripted tester has nothing")
	_, ok, err := ws.Ref("refs/dixit/r1/testers/t")
	require.NoError(t, err)
	assert.True(t, ok, "proposals are kept on the tester's hidden ref")
}

// A coder's version may be a diff from base/: its tree is the base with the diff applied,
// and a diff that does not apply is said when the population loads.
func TestACoderVersionMayBeADiffFromTheBase(t *testing.T) {
	dir := population(t)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "coders", "b", "1")))
	diff := "diff --git a/x.go b/x.go\nnew file mode 100644\n--- /dev/null\n+++ b/x.go\n@@ -0,0 +1 @@\n+package x // from a diff\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "coders", "b", "1.diff"), []byte(diff), 0o644))
	pop, err := scripted.Load(dir)
	require.NoError(t, err)
	ws, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	commit, err := scripted.NewCoder(ws, "r1", pop.Coders[1]).Solve(context.Background(), orchestrate.Turn{Message: "go", Draw: 1})
	require.NoError(t, err)
	files, err := ws.Files(commit)
	require.NoError(t, err)
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = string(f.Content)
	}
	assert.Equal(t, map[string]string{"go.mod": "module x\n", "x.go": "package x // from a diff\n"}, got, "the base, and the diff's change")

	bad := "diff --git a/go.mod b/go.mod\n--- a/go.mod\n+++ b/go.mod\n@@ -1 +1 @@\n-module y\n+module z\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "coders", "b", "1.diff"), []byte(bad), 0o644))
	_, err = scripted.Load(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "coders/b/1.diff: does not apply to base/")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "coders", "b", "1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "coders", "b", "1", "x.go"), []byte("package x\n"), 0o644))
	_, err = scripted.Load(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "coders/b: version 1 is both a directory and a diff")
}

// A scripted tester's version may be a diff of one of base/'s test files (<k>.diff): it
// proposes that file patched and the tests the diff adds or changes; a diff the judge
// would refuse stops the population from loading, with the reason.
func TestATesterVersionMayBeADiff(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("spec.md", "Do the thing.\n")
	write("dixit.yml", "coders: 3\ntesters: 1\ntest:\n  preset: python\n")
	write("base/x.py", "def f():\n    return 1\n")
	write("base/tests/test_x.py", "from x import f\n\n\ndef test_f():\n    assert f() == 1\n")
	for _, c := range []string{"a", "b", "c"} {
		write("coders/"+c+"/1/x.py", "def f():\n    return 1\n")
	}
	const head = "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n"
	write("testers/t/1.diff", head+"@@ -4,2 +4,2 @@\n def test_f():\n-    assert f() == 1\n+    assert f() + 1 == 2\n")
	write("testers/t/2/tests/test_y.py", "def test_y():\n    pass\n")
	p, err := scripted.Load(dir)
	require.NoError(t, err)
	w, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	tester := scripted.NewTester(w, "r1", p.Testers[0])
	got, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "go", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, "tests/test_x.py", got.Path)
	assert.Equal(t, []string{"tests/test_x.py::test_f"}, got.Select)
	assert.Equal(t, "from x import f\n\n\ndef test_f():\n    assert f() + 1 == 2\n", string(got.Content))
	got, err = tester.Propose(context.Background(), orchestrate.Turn{Message: "go", Draw: 2})
	require.NoError(t, err)
	assert.Equal(t, "tests/test_y.py", got.Path)
	assert.Empty(t, got.Select, "a whole file runs whole")

	write("testers/t/1.diff", head+"@@ -1,3 +1,4 @@\n+# just a comment\n from x import f\n \n \n")
	_, err = scripted.Load(dir)
	assert.ErrorContains(t, err, "testers/t/1.diff: the diff adds or changes no test function in tests/test_x.py")
	write("testers/t/1.diff", head+"@@ -4,2 +4,2 @@\n def test_f():\n-    assert f() == 2\n+    assert f() == 1\n")
	_, err = scripted.Load(dir)
	assert.ErrorContains(t, err, "testers/t/1.diff: the diff does not apply to tests/test_x.py on the base revision")
}
