package gitstate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// The tree hash in results.json is the hash the workshop repository gives the same files,
// so a backend can check that a runner judged the commit it was sent.
func TestTreeHashIsGitsTreeHash(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/x\n", "x.go": "package x\n", "a/b/c.txt": "deep\n",
		"a.b": "sorts before a/ in git\n", "a-b/x": "and after\n", ".git/HEAD": "not part of the tree\n",
	})
	require.NoError(t, os.Chmod(filepath.Join(dir, "x.go"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))

	tree, err := gitstate.ReadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, 5, tree.Len())

	ws, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	want, err := ws.ImportDir(dir)
	require.NoError(t, err)
	assert.Equal(t, want, tree.Hash())

	// The same commit read from a repository gives the same tree and hash.
	commit, err := ws.Commit("refs/heads/main", want, "tree")
	require.NoError(t, err)
	fromRepo, err := gitstate.ReadRevision(ws.Path(), "refs/heads/main")
	require.NoError(t, err)
	assert.Equal(t, want, fromRepo.Hash())
	byCommit, err := gitstate.ReadRevision(ws.Path(), commit)
	require.NoError(t, err)
	assert.Equal(t, want, byCommit.Hash())

	// Files fetched from git (a pull request's head) give the same hash too.
	files, err := ws.Files(commit)
	require.NoError(t, err)
	fromGit, err := gitstate.SnapshotOf(files)
	require.NoError(t, err)
	assert.Equal(t, want, fromGit.Hash())

	// And writing it out gives the files back, executable bit included.
	out := t.TempDir()
	require.NoError(t, fromRepo.WriteTo(out))
	again, err := gitstate.ReadDir(out)
	require.NoError(t, err)
	assert.Equal(t, want, again.Hash())
	fi, err := os.Stat(filepath.Join(out, "x.go"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&0o100)

	if git, err := exec.LookPath("git"); err == nil { // and git itself agrees
		cmd := exec.Command(git, "--git-dir", ws.Path(), "rev-parse", "refs/heads/main^{tree}")
		outb, err := cmd.Output()
		require.NoError(t, err)
		assert.Equal(t, want, strings.TrimSpace(string(outb)))
	}
}

func TestTreesRefuseLinksAndBadRevisions(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x.go": "package x\n"})
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))
	_, err := gitstate.ReadDir(dir)
	require.ErrorContains(t, err, "link: not a regular file")

	_, err = gitstate.ReadDir(filepath.Join(dir, "missing"))
	require.Error(t, err)

	ws, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	_, err = gitstate.ReadRevision(ws.Path(), "refs/heads/nothing")
	require.ErrorContains(t, err, `has no branch, tag or commit "refs/heads/nothing"`)
	_, err = gitstate.ReadRevision(ws.Path(), "/nope.diff")
	require.ErrorContains(t, err, `has no branch, tag or commit "/nope.diff"`, "no go-git words")
	_, err = gitstate.ReadRevision(t.TempDir(), "main")
	require.ErrorContains(t, err, "is not a git repository")
}
