package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTreesRoundTripThroughRefs(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "workshop.git"))
	require.NoError(t, err)

	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "pkg", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "pkg", "sub", "a.go"), []byte("package sub\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(src, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, ".git", "HEAD"), []byte("junk"), 0o644))

	tree, err := w.ImportDir(src)
	require.NoError(t, err)
	ref := "refs/dixit/run1/coders/amber"
	c1, err := w.Commit(ref, tree, "solve 1")
	require.NoError(t, err)

	out := t.TempDir()
	require.NoError(t, w.Checkout(c1, out))
	got, err := os.ReadFile(filepath.Join(out, "pkg", "sub", "a.go"))
	require.NoError(t, err)
	assert.Equal(t, "package sub\n", string(got))
	info, err := os.Stat(filepath.Join(out, "run.sh"))
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&0o100, "executable bit survives")
	_, err = os.Stat(filepath.Join(out, ".git"))
	assert.True(t, os.IsNotExist(err), ".git is never imported")

	// The same content gives the same tree hash, whatever the directory.
	again, err := w.WriteFiles([]File{
		{Path: "run.sh", Content: []byte("#!/bin/sh\n"), Executable: true},
		{Path: "pkg/sub/a.go", Content: []byte("package sub\n")},
		{Path: "go.mod", Content: []byte("module x\n")},
	})
	require.NoError(t, err)
	assert.Equal(t, tree, again)

	// A rollback moves the ref back to an earlier commit.
	t2, err := w.WriteFiles([]File{{Path: "go.mod", Content: []byte("module y\n")}})
	require.NoError(t, err)
	c2, err := w.Commit(ref, t2, "solve 2")
	require.NoError(t, err)
	require.NoError(t, w.SetRef(ref, c2, c1))
	head, ok, err := w.Ref(ref)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, c1, head)
	assert.ErrorIs(t, w.SetRef(ref, c2, c1), ErrRefMoved, "a stale compare-and-swap loses")

	if _, err := exec.LookPath("git"); err == nil {
		// Real git sees the hidden ref and no branch.
		cmd := exec.Command("git", "--git-dir", w.Path(), "for-each-ref", "--format=%(refname)")
		outb, err := cmd.Output()
		require.NoError(t, err)
		assert.Equal(t, ref, strings.TrimSpace(string(outb)))
		fsck := exec.Command("git", "--git-dir", w.Path(), "fsck", "--strict")
		fout, err := fsck.CombinedOutput()
		require.NoError(t, err, string(fout))
	}
}

func TestUnsafePathsAreRefused(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	for _, p := range []string{"../x", "/etc/passwd", "a/../../b", ".git/config", "a\\b", ""} {
		_, err := w.WriteFiles([]File{{Path: p, Content: []byte("x")}})
		assert.Error(t, err, p)
	}
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))
	_, err = w.ImportDir(dir)
	assert.ErrorContains(t, err, "link: not a regular file")
}

func TestJournalAppendsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.git")
	w, err := Open(path)
	require.NoError(t, err)
	j, err := w.Journal("refs/dixit/r/journal")
	require.NoError(t, err)
	entries, err := j.Entries()
	require.NoError(t, err)
	assert.Empty(t, entries)
	for _, rec := range []string{`{"n":1}`, `{"n":2}`, `{"n":2}`} {
		require.NoError(t, j.Append([]byte(rec)))
	}

	w2, err := Open(path)
	require.NoError(t, err)
	j2, err := w2.Journal("refs/dixit/r/journal")
	require.NoError(t, err)
	entries, err = j2.Entries()
	require.NoError(t, err)
	require.Len(t, entries, 3)
	assert.Equal(t, `{"n":1}`, string(entries[0]))
	assert.Equal(t, `{"n":2}`, string(entries[2]))

	// The first journal's view is now stale: its next append must not fork the history.
	require.NoError(t, j2.Append([]byte(`{"n":3}`)))
	assert.ErrorIs(t, j.Append([]byte(`{"n":"x"}`)), ErrJournalMoved)
}

func TestRefLocksAndNames(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	tree, err := w.WriteFiles([]File{{Path: "a", Content: []byte("a")}})
	require.NoError(t, err)
	ref := "refs/dixit/r/coders/a"
	c1, err := w.Commit(ref, tree, "one")
	require.NoError(t, err)

	lock := filepath.Join(w.Path(), "refs", "dixit", "r", "coders", "a.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	_, err = w.Commit(ref, tree, "two")
	assert.ErrorIs(t, err, ErrRefMoved, "a live writer's lock is respected")

	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(lock, old, old))
	c2, err := w.Commit(ref, tree, "two")
	require.NoError(t, err, "a lock left by a killed process is taken over")
	head, _, err := w.Ref(ref)
	require.NoError(t, err)
	assert.Equal(t, c2, head)
	assert.NotEqual(t, c1, c2)

	for _, bad := range []string{"refs/dixit/a b", "refs/../x", "heads/main", "refs/x.lock"} {
		assert.ErrorContains(t, w.SetRef(bad, "", c1), "not a valid ref name", bad)
	}
}
