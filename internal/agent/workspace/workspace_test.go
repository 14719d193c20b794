package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
)

// newWorkspace opens a temporary workspace holding files (a trailing "/" makes a
// directory) and closes it with the test.
func newWorkspace(t *testing.T, opts Options, files ...string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, filepath.FromSlash(files[i]))
		if strings.HasSuffix(files[i], "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(files[i+1]), 0o644))
	}
	w, err := Open(dir, opts)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w
}

// call runs a tool with arguments given as a JSON string, or as a value to marshal.
func call(t *testing.T, w *Workspace, name string, args any) string {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		require.NoError(t, err)
		raw = string(b)
	}
	out, err := w.Call(context.Background(), llm.ToolCall{ID: "call-1", Name: name, Arguments: raw})
	require.NoError(t, err)
	return out
}

type m = map[string]any

func TestHappyPaths(t *testing.T) {
	w := newWorkspace(t, Options{MaxRead: 64},
		"main.go", "package main\n", "sub/b.go", "package sub\n", "sub/deep/c.txt", "c", "empty/", "",
		".git/config", "[core]\n", "sub/.git", "gitdir: x\n", "big.txt", strings.Repeat("0123456789", 10),
		"blob.bin", "\x7fELF\x00\x01\x02", "utf8.txt", strings.Repeat("é", 40), "zero.txt", "")
	require.NoError(t, os.Symlink("main.go", filepath.Join(w.Dir(), "link.go")))

	cases := []struct {
		name, tool string
		args       any
		want       string
	}{
		{"list the root", toolList, m{}, "big.txt (100 bytes)\nblob.bin (7 bytes)\nempty/\nlink.go -> main.go\n" +
			"main.go (13 bytes)\nsub/\nutf8.txt (80 bytes)\nzero.txt (0 bytes)"},
		{"list with empty arguments", toolList, "", "big.txt (100 bytes)\nblob.bin (7 bytes)\nempty/\nlink.go -> main.go\n" +
			"main.go (13 bytes)\nsub/\nutf8.txt (80 bytes)\nzero.txt (0 bytes)"},
		{"list recursively skips .git", toolList, m{"path": "sub", "recursive": true},
			"sub/b.go (12 bytes)\nsub/deep/\nsub/deep/c.txt (1 bytes)"},
		{"list a subdirectory", toolList, m{"path": "./sub/"}, "sub/b.go (12 bytes)\nsub/deep/"},
		{"list one file", toolList, m{"path": "main.go"}, "main.go (13 bytes)"},
		{"list an empty directory", toolList, m{"path": "empty"}, "(empty is an empty directory)"},
		{"read a file", toolRead, m{"path": "sub/b.go"}, "package sub\n"},
		{"read through a link inside", toolRead, m{"path": "link.go"}, "package main\n"},
		{"read an empty file", toolRead, m{"path": "zero.txt"}, "(zero.txt is empty)"},
		{"read a long file", toolRead, m{"path": "big.txt"},
			strings.Repeat("0123456789", 6) + "0123\n[cut: showing the first 64 of 100 bytes of big.txt]"},
		{"read cuts between characters, not inside one", toolRead, m{"path": "utf8.txt"},
			strings.Repeat("é", 32) + "\n[cut: showing the first 64 of 80 bytes of utf8.txt]"},
		{"read a binary file", toolRead, m{"path": "blob.bin"}, "blob.bin is a binary file (7 bytes); its content is not shown"},
		{"write a new file in new directories", toolWrite, m{"path": "new/dir/x.go", "content": "package dir\n"}, "created new/dir/x.go (12 bytes)"},
		{"write replaces a file", toolWrite, m{"path": "main.go", "content": "package main // v2\n"}, "replaced main.go (19 bytes)"},
		{"write an empty file", toolWrite, m{"path": "empty.txt", "content": ""}, "created empty.txt (0 bytes)"},
		{"delete a file", toolDelete, m{"path": "sub/deep/c.txt"}, "deleted sub/deep/c.txt"},
		{"delete an empty directory", toolDelete, m{"path": "sub/deep"}, "deleted the empty directory sub/deep"},
		{"delete a link, not its target", toolDelete, m{"path": "link.go"}, "deleted link.go"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := call(t, w, c.tool, c.args)
			assert.Equal(t, c.want, out)
			assert.False(t, IsToolError(out))
		})
	}

	b, err := os.ReadFile(filepath.Join(w.Dir(), "new", "dir", "x.go"))
	require.NoError(t, err)
	assert.Equal(t, "package dir\n", string(b))
	fi, err := os.Stat(filepath.Join(w.Dir(), "new", "dir", "x.go"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	assert.Equal(t, "package main // v2\n", call(t, w, toolRead, m{"path": "main.go"}))
	assert.FileExists(t, filepath.Join(w.Dir(), "main.go"), "deleting the link removed its target")
}

func TestWriteKeepsModeOfReplacedFile(t *testing.T) {
	w := newWorkspace(t, Options{}, "run.sh", "#!/bin/sh\n")
	p := filepath.Join(w.Dir(), "run.sh")
	require.NoError(t, os.Chmod(p, 0o755))
	assert.Equal(t, "replaced run.sh (18 bytes)", call(t, w, toolWrite, m{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
}

func TestListIsBounded(t *testing.T) {
	w := newWorkspace(t, Options{MaxFiles: 3}, "a", "", "b", "", "c/d", "", "e", "")
	assert.Equal(t, "a (0 bytes)\nb (0 bytes)\nc/\n[listing stopped at 3 entries; list a subdirectory to see the rest]",
		call(t, w, toolList, m{"recursive": true}))
	assert.Equal(t, "a (0 bytes)\nb (0 bytes)\nc/\n[listing stopped at 3 entries; list a subdirectory to see the rest]",
		call(t, w, toolList, m{}))
}

func TestTools(t *testing.T) {
	runner := &fakeRunner{}
	cases := []struct {
		name string
		opts Options
		want []string
	}{
		{"read-write with a runner", Options{Runner: runner}, []string{toolList, toolRead, toolWrite, toolDelete, toolRun}},
		{"read-write without a runner", Options{}, []string{toolList, toolRead, toolWrite, toolDelete}},
		{"read-only hides writing and commands", Options{ReadOnly: true, Runner: runner}, []string{toolList, toolRead}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t, c.opts)
			var names []string
			for _, tool := range w.Tools() {
				names = append(names, tool.Name)
				var s struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
					Additional *bool                      `json:"additionalProperties"`
				}
				require.NoError(t, json.Unmarshal(tool.Parameters, &s), tool.Name)
				assert.Equal(t, "object", s.Type)
				require.NotNil(t, s.Additional)
				assert.False(t, *s.Additional)
				for _, r := range s.Required {
					assert.Contains(t, s.Properties, r)
				}
				desc := strings.ToLower(tool.Description + string(tool.Parameters))
				for _, word := range []string{"test", "agent", "score", "game", "judge", "coder", "other", "dixit", "review"} {
					assert.NotContains(t, desc, word, "%s mentions %q", tool.Name, word)
				}
			}
			assert.Equal(t, c.want, names)
		})
	}
}

func TestOpen(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "missing"), Options{})
	assert.Error(t, err)
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = Open(file, Options{})
	assert.Error(t, err)

	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.Symlink(real, link))
	w, err := Open(link, Options{})
	require.NoError(t, err)
	defer w.Close()
	want, err := filepath.EvalSymlinks(real)
	require.NoError(t, err)
	assert.Equal(t, want, w.Dir())
}

// TestInfrastructureErrors: a broken workspace is the caller's error, not the model's.
func TestInfrastructureErrors(t *testing.T) {
	w := newWorkspace(t, Options{}, "a.go", "package a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := w.Call(ctx, llm.ToolCall{Name: toolRead, Arguments: `{"path": "a.go"}`})
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, w.Close())
	out, err := w.Call(context.Background(), llm.ToolCall{Name: toolRead, Arguments: `{"path": "a.go"}`})
	assert.ErrorIs(t, err, os.ErrClosed)
	assert.Empty(t, out)
}
