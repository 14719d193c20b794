package ci

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClip(t *testing.T) {
	euro := "€" // three bytes
	cases := []struct {
		name string
		out  []byte
		note string
		max  int
		want string
	}{
		{name: "short output is kept", out: []byte("hello"), max: 100, want: "hello"},
		{name: "note is appended", out: []byte("hello"), note: "exit status 1", max: 100, want: "hello\n[dixit] exit status 1\n"},
		{name: "tail is kept", out: []byte("0123456789"), max: 4, want: "6789"},
		{name: "no half character at the cut", out: []byte(strings.Repeat(euro, 4)), max: 7, want: euro + euro},
		{name: "invalid bytes are replaced", out: []byte{'a', 0xff, 'b'}, max: 100, want: "a\uFFFDb"},
		{name: "note wins over output", out: []byte("0123456789"), note: "n", max: 12, want: "9\n[dixit] n\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := clip(c.out, c.note, c.max)
			assert.Equal(t, c.want, got)
			assert.True(t, utf8.ValidString(got))
			assert.LessOrEqual(t, len(got), c.max)
		})
	}
}

func TestTail(t *testing.T) {
	tl := newTail(8)
	for i := 0; i < 100; i++ {
		tl.Write([]byte("abc"))
	}
	tl.Write([]byte("0123456789xyz"))
	assert.Equal(t, "56789xyz", string(tl.Bytes()))
}

func TestRunOutput(t *testing.T) {
	const m = "\x1eMARK\x1e"
	cases := []struct {
		name       string
		chunks     []string
		limit      int64
		last, cur  string
		overFlowed bool
	}{
		{name: "two runs", chunks: []string{"run 1\n" + m + "run 2\n" + m}, limit: 100, last: "run 2\n"},
		{name: "marker split across reads", chunks: []string{"one" + m[:3], m[3:] + "two" + m[:1], m[1:]}, limit: 100, last: "two"},
		{name: "killed mid-run", chunks: []string{"ok" + m + "partial"}, limit: 100, last: "ok", cur: "partial"},
		{name: "limit is per run", chunks: []string{"12345678" + m + "12345678" + m}, limit: 10, last: "12345678"},
		{name: "over the limit", chunks: []string{"12345" + m + "123456789012"}, limit: 10, last: "12345", cur: "123456789012", overFlowed: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			over := false
			o := newRunOutput(m, c.limit, MaxOutput, func() { over = true })
			for _, ch := range c.chunks {
				o.write([]byte(ch))
			}
			o.pump(strings.NewReader("")) // EOF flushes what might have been a marker
			assert.Equal(t, c.last, string(o.last))
			assert.Equal(t, c.cur, string(o.cur.Bytes()))
			assert.Equal(t, c.overFlowed, over)
		})
	}
}

func TestChildTimes(t *testing.T) {
	assert.Equal(t, 1500*time.Millisecond, childTimes("0m1.25s 0m0.25s"))
	assert.Equal(t, 61*time.Second, childTimes("1m1.000000s 0m0.000000s"))
	assert.Zero(t, childTimes(""))
}

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
			got, err := place(c, Test{ID: tc.id})
			if !tc.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.rel)
		})
	}
}

// A tester names where its test goes: in the package it is about, never outside the
// contract's places or over a file the judge keeps.
func TestNamedTestPath(t *testing.T) {
	c, ok := Preset("go")
	require.True(t, ok)
	cases := []struct {
		path, problem string
	}{
		{path: "internal/clamp/clamp_dixit_test.go"},
		{path: "clamp_test.go"},
		{path: "internal/clamp/clamp.go", problem: "not one of the places"},
		{path: "../escape_test.go", problem: "each part"},
		{path: "/etc/x_test.go", problem: "each part"},
		{path: "a//b_test.go", problem: "each part"},
		{path: "a/-rf_test.go", problem: "each part"},
		{path: "a/$(id)_test.go", problem: "each part"},
		{path: ".git/x_test.go", problem: "each part"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			got, err := place(c, Test{ID: "t1", Path: tc.path})
			if tc.problem != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.problem)
				assert.Contains(t, err.Error(), tc.path, "the error names what the tester wrote")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.path, got.rel)
		})
	}

	kept := Contract{Path: "t_{id}.py", Paths: []string{"**/*.py"}, Exclude: []string{"test_*.py"}}
	_, err := place(kept, Test{ID: "t1", Path: "pkg/module.py"})
	require.Error(t, err, "a place the judge does not clear could overwrite the coder's code")
	assert.Contains(t, err.Error(), "test.exclude")

	_, err = place(Contract{Path: "t_{id}.py"}, Test{ID: "t1", Path: "tests/test_x.py"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test.paths is empty")
}

func TestPlacementExpands(t *testing.T) {
	p := placement{id: "t1", rel: "internal/clamp/clamp_dixit_test.go"}
	assert.Equal(t, "go test -c -o internal/clamp/dixit.test ./internal/clamp; clamp_dixit_test t1 internal/clamp/clamp_dixit_test.go",
		p.expand("go test -c -o {dir}/dixit.test ./{dir}; {name} {id} {path}"))
	root := placement{id: "t1", rel: "dixit_t1_test.go"}
	assert.Equal(t, "./. .", root.expand("./{dir} {dir}"))
}

func TestExclude(t *testing.T) {
	dir := t.TempDir()
	tree := mapTree{
		"a_test.go":          "",
		"pkg/b_test.go":      "",
		"pkg/b.go":           "",
		"testdata/x":         "",
		"docs/notes_test.go": "",
		"keep.go":            "",
	}
	require.NoError(t, tree.WriteTo(dir))
	require.NoError(t, exclude(dir, []string{"*_test.go", "testdata"}))
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
			require.NoError(t, placeTest(src, "tests/x_test.go", []byte("package x\n")))
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

func TestClaimUIDs(t *testing.T) {
	dir := t.TempDir()
	a, locksA, err := claimUIDs(dir, 62000, 2)
	require.NoError(t, err)
	b, locksB, err := claimUIDs(dir, 62000, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{62001, 62002}, a, "62000 is the lanes' group, never a lane")
	assert.Equal(t, []int{62003, 62004}, b, "a second judge gets other lanes")
	releaseUIDs(locksA)
	c, locksC, err := claimUIDs(dir, 62000, 1)
	require.NoError(t, err)
	assert.Equal(t, []int{62001}, c, "released lanes are reused")
	releaseUIDs(locksB)
	releaseUIDs(locksC)
	_, _, err = claimUIDs(dir, 62000, uidSpan+1)
	assert.Error(t, err)
}
