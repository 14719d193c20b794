package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
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
	freed, err := capDir(dir, 3000)
	require.NoError(t, err)
	assert.Equal(t, int64(7000), freed, "everything went but what fits, and the newest file alone is over the limit")
}
