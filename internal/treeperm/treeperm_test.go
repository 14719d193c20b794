package treeperm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/testuser"
)

// lockedTree is what a hostile command leaves: a directory nobody may enter, one
// nobody may change, a file nobody may read, and a link to a directory outside.
func lockedTree(t *testing.T) (dir, outside string) {
	t.Helper()
	dir, outside = filepath.Join(t.TempDir(), "work"), t.TempDir()
	for _, d := range []string{"sealed/deep", "frozen"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, f := range []string{"sealed/deep/a.go", "frozen/b.go", "secret.go"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("package x\n"), 0o644))
	}
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out")))
	require.NoError(t, os.Chmod(outside, 0o500))
	require.NoError(t, os.Chmod(filepath.Join(dir, "secret.go"), 0))
	require.NoError(t, os.Chmod(filepath.Join(dir, "sealed"), 0))
	require.NoError(t, os.Chmod(filepath.Join(dir, "frozen"), 0o555))
	t.Cleanup(func() { os.Chmod(outside, 0o700) })
	return dir, outside
}

// TestRestoreMakesALockedTreeReadable: after Restore every file reads, whoever runs us,
// and nothing outside the tree changed mode.
func TestRestoreMakesALockedTreeReadable(t *testing.T) {
	testuser.AlsoAsNobody(t)
	dir, outside := lockedTree(t)
	require.NoError(t, Restore(dir))
	for _, f := range []string{"sealed/deep/a.go", "frozen/b.go", "secret.go"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Equal(t, "package x\n", string(data))
	}
	fi, err := os.Stat(outside)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o500), fi.Mode().Perm(), "the link was not followed")
	fi, err = os.Stat(filepath.Join(dir, "frozen", "b.go"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "modes that allowed reading are kept")
}

// TestRemoveAllRemovesALockedTree: a tree a command locked goes away whole, and what a
// link in it points at stays.
func TestRemoveAllRemovesALockedTree(t *testing.T) {
	testuser.AlsoAsNobody(t)
	dir, outside := lockedTree(t)
	if os.Geteuid() != 0 {
		require.Error(t, os.RemoveAll(dir), "the plain removal fails on this tree")
	}
	require.NoError(t, RemoveAll(dir))
	assert.NoDirExists(t, dir)
	assert.DirExists(t, outside)
	require.NoError(t, RemoveAll(dir), "removing what is gone is not an error")
}
