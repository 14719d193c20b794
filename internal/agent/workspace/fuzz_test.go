package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
)

// FuzzCall sends the file tools arbitrary arguments, as a model may: traversal, absolute
// paths, symbolic links, huge or binary content. Every call is answered (a result or a
// tool error, never a failure of the machinery that would end the run), and nothing
// outside the workspace is read, written or deleted.
func FuzzCall(f *testing.F) {
	seeds := []struct{ tool, args string }{
		{toolList, `{}`}, {toolList, `{"path": "../"}`},
		{toolRead, `{"path": "a.go"}`}, {toolRead, `{"path": "out/secret"}`}, {toolRead, `{"path": "/etc/passwd"}`},
		{toolWrite, `{"path": "b.go", "content": "package b"}`}, {toolWrite, `{"path": "../escape", "content": "x"}`},
		{toolWrite, `{"path": "out/planted", "content": "x"}`}, {toolWrite, `{"path": "d/\u0000e", "content": "\u00ff"}`},
		{toolDelete, `{"path": "a.go"}`}, {toolDelete, `{"path": "out"}`}, {toolDelete, `{"path": "."}`},
		{toolRead, `{"path": 7}`}, {toolWrite, `[]`}, {"no_such_tool", `{}`},
		{toolWrite, `{"path": "sub/.GIT. ", "content": "x"}`}, {toolWrite, `{"path": ".github/workflows/x.yml", "content": "on: push"}`},
		{toolWrite, `{"path": "a\\b.go", "content": "x"}`}, {toolWrite, `{"path": "GITMOD~1", "content": "x"}`},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.args)
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		parent := t.TempDir()
		ws := filepath.Join(parent, "ws")
		secret := filepath.Join(parent, "secret")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(secret, []byte("SECRET"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// A link an earlier command could have planted, pointing out of the workspace.
		if err := os.Symlink(parent, filepath.Join(ws, "out")); err != nil {
			t.Fatal(err)
		}
		w, err := Open(ws, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		result, err := w.Call(context.Background(), llm.ToolCall{ID: "1", Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %s: the machinery failed instead of answering: %v", tool, args, err)
		}
		if strings.Contains(result, "SECRET") {
			t.Fatalf("%s %s: read outside the workspace: %q", tool, args, result)
		}
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2 {
			t.Fatalf("%s %s: something was created or deleted beside the workspace: %v", tool, args, entries)
		}
		if data, err := os.ReadFile(secret); err != nil || string(data) != "SECRET" {
			t.Fatalf("%s %s: the file beside the workspace changed", tool, args)
		}
		if bad := unfit(ws); bad != "" {
			t.Fatalf("%s %s: the tools made %q, which a commit would have to leave out", tool, args, bad)
		}
	})
}

// unfit returns a path under ws that no commit may hold as it is: a name git reserves,
// a backslash, a protected path. The tools must never make one.
func unfit(ws string) string {
	var bad string
	filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == ws {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		if gitstate.ReservedName(d.Name()) || strings.Contains(d.Name(), `\`) || (!d.IsDir() && Protected(filepath.ToSlash(rel)) != "") {
			bad = rel
			return filepath.SkipAll
		}
		return nil
	})
	return bad
}
