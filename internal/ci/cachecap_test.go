package ci

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tree that compiles a huge constant into an object is refused over_limit, and what it
// tried to put in the shared build cache stays out of it.
func TestAHugeObjectFailsOverLimit(t *testing.T) {
	l := newGoJudge(t, 30*time.Second, func(o *LocalOptions) { o.Limits.BuildFile = 64 << 20 })
	tree := goModule()
	tree["big.go"] = "package x\n\n// Big is 96 MiB of data in the object file.\nvar Big = [96 << 20]byte{96<<20 - 1: 1}\n"
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "big", Tree: tree,
		Test: Test{ID: "big", Content: goTest("", "func TestBig(t *testing.T) { _ = Big[0] }\n")}}})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, OverLimit, vs[0].Outcome, vs[0].Output)
	assert.Contains(t, vs[0].Output, "a build step wrote a file larger than 67108864 bytes")
	require.NoError(t, filepath.WalkDir(l.sb.cacheDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil && info.Size() > 64<<20 {
			t.Errorf("the cache kept %s, %d bytes", p, info.Size())
		}
		return err
	}))
}

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
	l := &Local{sb: &sandbox{cacheDir: dir}, cacheLimit: 3000, log: quietLogger()}
	l.trimCache()
	var left []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			left = append(left, d.Name())
		}
		return err
	}))
	assert.ElementsMatch(t, []string{"recent", "newest"}, left, "down to three quarters of the limit, oldest first")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "n", "burst"), make([]byte, 5000), 0o644))
	l.trimCache()
	assert.FileExists(t, filepath.Join(dir, "n", "burst"), "walks are spaced: a second one right away does nothing")
	freed, err := capDir(dir, 3000)
	require.NoError(t, err)
	assert.Equal(t, int64(7000), freed, "everything went but what fits, and the newest file alone is over the limit")
}
