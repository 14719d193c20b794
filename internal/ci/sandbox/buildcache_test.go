package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
)

// The cache is kept under its limit by removing the files used least recently.
func TestTheBuildCacheStaysUnderItsLimit(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i, name := range []string{"old", "older", "recent", "newest"} {
		p := filepath.Join(dir, name[:1], name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, make([]byte, 1000), 0o644))
		age := map[int]time.Duration{0: 3 * time.Hour, 1: 4 * time.Hour, 2: time.Hour, 3: time.Minute}[i]
		require.NoError(t, os.Chtimes(p, now.Add(-age), now.Add(-age)))
	}
	s := &Sandbox{cacheDir: dir, trim: &cacheTrim{limit: 3000}, log: citest.QuietLogger()}
	s.TrimCache()
	var left []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			left = append(left, d.Name())
		}
		return err
	}))
	assert.ElementsMatch(t, []string{"recent", "newest"}, left, "down to three quarters of the limit, oldest first")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "n", "burst"), make([]byte, 5000), 0o644))
	s.TrimCache()
	assert.FileExists(t, filepath.Join(dir, "n", "burst"), "walks are spaced: a second one right away does nothing")
	next := &Sandbox{cacheDir: dir, trim: &cacheTrim{limit: 3000}, log: citest.QuietLogger()}
	next.TrimCache()
	assert.FileExists(t, filepath.Join(dir, "n", "burst"), "nor does the first of a judge opened right after on the same cache")
	freed, err := capDir(dir, 3000)
	require.NoError(t, err)
	assert.Equal(t, int64(7000), freed, "everything went but what fits, and the newest file alone is over the limit")
}

// Every judge that opens the cache shares it with the lanes; the files of directories
// unchanged since the last share are not looked at again, and new ones always are.
func TestTheCacheIsSharedWithTheLanesAndOnlyNewFilesAreLookedAtAgain(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to the lanes' group needs root, as the judge's lanes do")
	}
	dir := filepath.Join(t.TempDir(), "gocache")
	old := filepath.Join(dir, "00", "old")
	require.NoError(t, os.MkdirAll(filepath.Dir(old), 0o755))
	require.NoError(t, os.WriteFile(old, []byte("x"), 0o600))
	const gid = 4242
	shared := func(p string) bool {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		return int(st.Gid) == gid && fi.Mode().Perm()&0o060 == 0o060
	}
	require.NoError(t, shareDir(dir, gid))
	assert.True(t, shared(old))
	assert.True(t, shared(filepath.Dir(old)))

	// A file the host wrote since (a run without lanes), in a directory new or old.
	fresh := filepath.Join(dir, "00", "fresh")
	deep := filepath.Join(dir, "01", "sub", "deep")
	require.NoError(t, os.MkdirAll(filepath.Dir(deep), 0o755))
	for _, p := range []string{fresh, deep} {
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
		require.NoError(t, os.Chown(p, -1, 0))
	}
	require.NoError(t, os.Chmod(old, 0o600)) // and one unshared in place
	require.NoError(t, shareDir(dir, gid))
	assert.True(t, shared(fresh), "a file new in an old directory is shared")
	assert.True(t, shared(deep), "a file in a new directory is shared")
	assert.True(t, shared(old), "its directory changed, so its files are looked at again")

	// Unshared in place again, its directory untouched since: the walk skips it, as it
	// skips the thousands of files the last judge already shared.
	require.NoError(t, os.Chmod(old, 0o600))
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Dir(old), past, past))
	require.NoError(t, shareDir(dir, gid))
	assert.False(t, shared(old), "a directory unchanged since the last share is not read again")
	require.NoError(t, shareDir(dir, gid+1))
	assert.True(t, func() bool {
		fi, err := os.Stat(old)
		require.NoError(t, err)
		return int(fi.Sys().(*syscall.Stat_t).Gid) == gid+1
	}(), "another group for the lanes: every file again")
}
