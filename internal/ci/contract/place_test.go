package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
)

func TestTestPath(t *testing.T) {
	c := Contract{Path: "tests/dixit_{id}_test.go"}
	cases := []struct {
		name, id, want string
		ok             bool
	}{
		{name: "plain", id: "t1", want: "tests/dixit_t1_test.go", ok: true},
		{name: "dots and dashes", id: "a.b-c_d", want: "tests/dixit_a.b-c_d_test.go", ok: true},
		{name: "dot dot", id: "..", ok: false},
		{name: "slash", id: "a/../../b", ok: false},
		{name: "leading dash", id: "-rf", ok: false},
		{name: "space", id: "a b", ok: false},
		{name: "dollar", id: "$(id)", ok: false},
		{name: "empty", id: "", ok: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Place(c, tc.id, "")
			if !tc.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Rel)
		})
	}
}

func TestPlacementExpands(t *testing.T) {
	p := Placement{ID: "t1", Rel: "internal/clamp/clamp_dixit_test.go"}
	assert.Equal(t, "go test -c -o internal/clamp/dixit.test ./internal/clamp; clamp_dixit_test t1 internal/clamp/clamp_dixit_test.go",
		p.Expand("go test -c -o {dir}/dixit.test ./{dir}; {name} {id} {path}"))
	root := Placement{ID: "t1", Rel: "dixit_t1_test.go"}
	assert.Equal(t, "./. .", root.Expand("./{dir} {dir}"))
}

func TestExclude(t *testing.T) {
	dir := t.TempDir()
	tree := citest.MapTree{
		"a_test.go":          "",
		"pkg/b_test.go":      "",
		"pkg/b.go":           "",
		"testdata/x":         "",
		"docs/notes_test.go": "",
		"keep.go":            "",
	}
	require.NoError(t, tree.WriteTo(dir))
	require.NoError(t, RemoveExcluded(dir, []string{"*_test.go", "testdata"}))
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	assert.ElementsMatch(t, []string{"pkg/b.go", "keep.go"}, left)
	assert.True(t, excluded("docs/x.md", []string{"docs/*.md"}))
	assert.False(t, excluded("sub/docs/x.md", []string{"docs/*.md"}), "a pattern with a slash is anchored")
}

// TestPlaceTestStaysInTree: a coder's symlink where the test goes must not carry the
// judge's write outside the tree.
func TestPlaceTestStaysInTree(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, src, outside string)
	}{
		{name: "symlinked directory", setup: func(t *testing.T, src, outside string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(src, "tests")))
		}},
		{name: "symlinked file", setup: func(t *testing.T, src, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(src, "tests"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(outside, "x_test.go"), filepath.Join(src, "tests", "x_test.go")))
		}},
		{name: "file where a directory goes", setup: func(t *testing.T, src, _ string) {
			require.NoError(t, os.WriteFile(filepath.Join(src, "tests"), []byte("file"), 0o644))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, outside := t.TempDir(), t.TempDir()
			c.setup(t, src, outside)
			require.NoError(t, PlaceFile(src, "tests/x_test.go", []byte("package x\n")))
			got, err := os.ReadFile(filepath.Join(src, "tests", "x_test.go"))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(got, []byte("package x\n")))
			fi, err := os.Lstat(filepath.Join(src, "tests"))
			require.NoError(t, err)
			assert.True(t, fi.IsDir())
			entries, _ := os.ReadDir(outside)
			assert.Empty(t, entries, "nothing written outside the tree")
		})
	}
}
