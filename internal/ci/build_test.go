package ci

import (
	"context"
	"io/fs"
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
	require.NoError(t, filepath.WalkDir(l.sb.CacheDir(), func(p string, d fs.DirEntry, err error) error {
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
