package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileCalls: every call that is wrong or reaches outside the workspace gets a
// short "error: " result the model can act on, and changes nothing outside.
func TestHostileCalls(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("hunter2"), 0o644))
	w := newWorkspace(t, Options{MaxWrite: 100, Runner: &fakeRunner{}},
		"a.go", "package a\n", "sub/b.go", "package sub\n", ".git/config", "[core]\n", "dir/", "")
	require.NoError(t, os.Symlink(secret, filepath.Join(w.Dir(), "out.txt")))
	require.NoError(t, os.Symlink(outside, filepath.Join(w.Dir(), "outdir")))
	require.NoError(t, os.Symlink("a.go", filepath.Join(w.Dir(), "in.go")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(w.Dir(), "fifo"), 0o644))

	cases := []struct {
		name, tool, args string
		want             string // part of the result
	}{
		{"parent escape", toolRead, `{"path": "../../etc/passwd"}`, `".." is not allowed`},
		{"absolute path", toolRead, `{"path": "/etc/passwd"}`, "absolute path"},
		{"escape after a step down", toolRead, `{"path": "a/../../x"}`, `".." is not allowed`},
		{"dot-dot inside is refused too", toolWrite, `{"path": "sub/../a.go", "content": ""}`, `".." is not allowed`},
		{"list the parent", toolList, `{"path": ".."}`, `".." is not allowed`},
		{"list the host root", toolList, `{"path": "/"}`, "absolute path"},
		{"read .git", toolRead, `{"path": ".git/config"}`, `".git" is a name git reserves; it is off limits`},
		{"read .git in another case", toolRead, `{"path": "./.GIT/config"}`, `".GIT" is a name git reserves`},
		{"list .git", toolList, `{"path": ".git"}`, `".git" is a name git reserves`},
		{"write a git hook", toolWrite, `{"path": ".git/hooks/pre-commit", "content": "curl evil"}`, `".git" is a name git reserves`},
		{"delete .git", toolDelete, `{"path": ".git"}`, `".git" is a name git reserves`},
		{"write a .git file deeper down", toolWrite, `{"path": "sub/.git", "content": "gitdir: /elsewhere"}`, `".git" is a name git reserves`},
		{"write .git as Windows spells it", toolWrite, `{"path": "sub/.GIT. ", "content": "x"}`, `".GIT. " is a name git reserves`},
		{"write .git's short name", toolWrite, `{"path": "git~1/config", "content": "x"}`, `"git~1" is a name git reserves`},
		{"write a backslash name", toolWrite, `{"path": "sub\\x.go", "content": "x"}`, `a backslash is not allowed in a path`},
		{"write .git as macOS spells it", toolWrite, `{"path": ".g\u200cit/config", "content": "x"}`, "is a name git reserves"},
		{"read through a link to a file outside", toolRead, `{"path": "out.txt"}`, "leads outside the workspace"},
		{"read through a link to a directory outside", toolRead, `{"path": "outdir/secret.txt"}`, "leads outside the workspace"},
		{"list through a link outside", toolList, `{"path": "outdir"}`, "leads outside the workspace"},
		{"write through a link to a file outside", toolWrite, `{"path": "out.txt", "content": "pwned"}`, "symbolic link"},
		{"write through a link to a directory outside", toolWrite, `{"path": "outdir/new.txt", "content": "pwned"}`, "leads outside the workspace"},
		{"write deep through a link outside", toolWrite, `{"path": "outdir/x/y.txt", "content": "pwned"}`, "leads outside the workspace"},
		{"write through a link inside", toolWrite, `{"path": "in.go", "content": "x"}`, "symbolic link"},
		{"delete through a link outside", toolDelete, `{"path": "outdir/secret.txt"}`, "leads outside the workspace"},
		{"write over a directory", toolWrite, `{"path": "dir", "content": "x"}`, "is a directory"},
		{"write below a file", toolWrite, `{"path": "a.go/x.go", "content": "x"}`, "not a directory"},
		{"write the root", toolWrite, `{"path": ".", "content": "x"}`, "workspace root"},
		{"huge write", toolWrite, `{"path": "huge.txt", "content": "` + strings.Repeat("x", 101) + `"}`, "at most 100 bytes"},
		{"write without content", toolWrite, `{"path": "c.go"}`, "content is required"},
		{"write without path", toolWrite, `{"content": "x"}`, "path is required"},
		{"read a missing file", toolRead, `{"path": "nope.go"}`, "nope.go does not exist"},
		{"read a FIFO without hanging", toolRead, `{"path": "fifo"}`, "not a regular file"},
		{"write into a FIFO", toolWrite, `{"path": "fifo", "content": "x"}`, "not a regular file"},
		{"read a directory", toolRead, `{"path": "sub"}`, "is a directory"},
		{"read without path", toolRead, `{}`, "path is required"},
		{"read a NUL path", toolRead, `{"path": "a\u0000b"}`, "NUL"},
		{"delete a missing file", toolDelete, `{"path": "nope.go"}`, "does not exist"},
		{"delete a full directory", toolDelete, `{"path": "sub"}`, "not empty"},
		{"delete the root", toolDelete, `{"path": "./"}`, "workspace root"},
		{"malformed JSON", toolRead, `{"path": "a.go"`, "not valid JSON"},
		{"not JSON at all", toolRead, `read a.go please`, "not valid JSON"},
		{"an array", toolRead, `["a.go"]`, "must be a JSON object"},
		{"a string", toolList, `"."`, "must be a JSON object"},
		{"unknown field", toolRead, `{"path": "a.go", "offset": 10}`, `no argument "offset"; it takes "path"`},
		{"field name in another case", toolRead, `{"PATH": "a.go"}`, `no argument "PATH"; it takes "path"`},
		{"wrong type", toolRead, `{"path": 5}`, `"path" must be a string, not a JSON number`},
		{"wrong type for a flag", toolList, `{"recursive": "yes"}`, `"recursive" must be a boolean, not a JSON string`},
		{"two objects", toolRead, `{"path": "a.go"} {"path": "b.go"}`, "extra data"},
		{"empty command", toolRun, `{"command": "  "}`, "command is required"},
		{"command of the wrong type", toolRun, `{"command": ["ls"]}`, `"command" must be a string`},
		{"unknown tool", "rm_rf", `{}`, `unknown tool "rm_rf"; the available tools are list_files, read_file, write_file, delete_file, run_command`},
		{"no tool name", "", `{}`, "unknown tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := call(t, w, c.tool, c.args)
			assert.True(t, IsToolError(out), out)
			assert.Contains(t, out, c.want)
			assert.Less(t, len(out), 300, "results stay short")
			assert.NotContains(t, out, "hunter2")
			assert.NotContains(t, out, w.Dir(), "results do not reveal the host path")
		})
	}

	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "hunter2", string(b))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "something was created outside the workspace")
	assert.NoFileExists(t, filepath.Join(w.Dir(), "huge.txt"))
	assert.FileExists(t, filepath.Join(w.Dir(), ".git", "config"))
	assert.Equal(t, "package a\n", call(t, w, toolRead, `{"path": "a.go"}`))
}

func TestReadOnly(t *testing.T) {
	runner := &fakeRunner{}
	w := newWorkspace(t, Options{ReadOnly: true, Runner: runner}, "a.go", "package a\n")
	cases := []struct{ tool, args string }{
		{toolWrite, `{"path": "a.go", "content": "x"}`},
		{toolWrite, `{"path": "new.go", "content": "x"}`},
		{toolDelete, `{"path": "a.go"}`},
		{toolRun, `{"command": "rm -rf ."}`},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			out := call(t, w, c.tool, c.args)
			assert.Equal(t, "error: "+c.tool+" is not available: this workspace is read-only", out)
		})
	}
	assert.Equal(t, "package a\n", call(t, w, toolRead, `{"path": "a.go"}`))
	assert.Equal(t, "a.go (10 bytes)", call(t, w, toolList, `{}`))
	assert.NoFileExists(t, filepath.Join(w.Dir(), "new.go"))
	assert.Empty(t, runner.calls, "a read-only workspace ran a command")
}

func TestIsToolError(t *testing.T) {
	assert.True(t, IsToolError("error: x does not exist"))
	assert.False(t, IsToolError("exit code 1\noutput:\nerror: build failed"))
	assert.False(t, IsToolError("package main\n"))
}
