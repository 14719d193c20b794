package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/testuser"
)

// workflows freezes .github/workflows/ and .gitmodules, as coders' imports do.
func workflows(p string) string {
	if strings.HasPrefix(p, ".github/workflows/") {
		return "workflows stay"
	}
	for _, part := range strings.Split(p, "/") {
		if ModulesName(part) {
			return "modules stay"
		}
	}
	return ""
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}

func treeFiles(t *testing.T, w *Workshop, hash string) map[string]string {
	t.Helper()
	files, err := w.Files(hash)
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		out[f.Path] = string(f.Content)
	}
	return out
}

// TestImportLeavesOutWhatATreeMustNotHold: a directory an agent's commands wrote becomes
// a tree git and GitHub accept, the frozen paths hold the parent's files, and every
// path left out is named with its reason.
func TestImportLeavesOutWhatATreeMustNotHold(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	parentTree, err := w.WriteFiles([]File{
		{Path: "main.go", Content: []byte("package main\n")},
		{Path: ".github/workflows/ci.yml", Content: []byte("on: push\n")},
		{Path: ".github/workflows/lint.yml", Content: []byte("on: pull_request\n")},
		{Path: ".github/dependabot.yml", Content: []byte("version: 2\n")},
	})
	require.NoError(t, err)
	parent, err := w.Commit("refs/dixit/r/coders/amber", parentTree, "base")
	require.NoError(t, err)

	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"main.go":                    "package main // solved\n",
		".git":                       "gitdir: /somewhere/else\n",
		"sub/.GIT/config":            "[core]\n",
		"sub/git~1":                  "x",
		".github/workflows/ci.yml":   "on: push\njobs: {steal: {runs-on: ubuntu-latest, steps: [{run: env}]}}\n",
		".github/workflows/evil.yml": "on: push\n",
		".github/dependabot.yml":     "version: 2 # changed\n",
		"vendor/.gitmodules":         "[submodule \"x\"]\n\turl = -evil\n",
		"big.bin":                    strings.Repeat("x", 101),
		`win\dows.go`:                "package main\n",
		`back\slash/a.go`:            "package a\n",
	})
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))

	tree, dropped, err := w.Import(dir, ImportOptions{Frozen: workflows, Parent: parent, MaxFile: 100})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"main.go":                    "package main // solved\n",
		".github/workflows/ci.yml":   "on: push\n",
		".github/workflows/lint.yml": "on: pull_request\n",
		".github/dependabot.yml":     "version: 2 # changed\n",
	}, treeFiles(t, w, tree))
	assert.Equal(t, []Dropped{
		{".git", "git reserves this name"},
		{".github/workflows/ci.yml", "workflows stay"},
		{".github/workflows/evil.yml", "workflows stay"},
		{".github/workflows/lint.yml", "deleted, kept: workflows stay"},
		{`back\slash`, "a backslash in a name"},
		{"big.bin", "larger than 100 bytes"},
		{"fifo", "not a regular file"},
		{"link", "not a regular file: a symbolic link"},
		{"sub/.GIT", "git reserves this name"},
		{"sub/git~1", "git reserves this name"},
		{"vendor/.gitmodules", "modules stay"},
		{`win\dows.go`, "a backslash in a name"},
	}, dropped)

	if _, err := exec.LookPath("git"); err == nil {
		commit, err := w.CommitAfter("refs/heads/check", "", tree, "check")
		require.NoError(t, err)
		out, err := exec.Command("git", "--git-dir", w.Path(), "fsck", "--strict", "--no-dangling", commit).CombinedOutput()
		assert.NoError(t, err, "git fsck accepts the tree:\n%s", out)
		assert.Empty(t, strings.TrimSpace(string(out)), "git fsck has nothing to say")
	}
}

// TestImportGivesWayToFrozenFiles: a file where a frozen file of the parent needs a
// directory is left out, not a tree that depends on the order of a walk.
func TestImportGivesWayToFrozenFiles(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	parent, err := w.WriteFiles([]File{{Path: ".github/workflows/ci.yml", Content: []byte("on: push\n")}})
	require.NoError(t, err)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".github": "not a directory any more\n", "a.go": "package a\n"})

	tree, dropped, err := w.Import(dir, ImportOptions{Frozen: workflows, Parent: parent})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{".github/workflows/ci.yml": "on: push\n", "a.go": "package a\n"}, treeFiles(t, w, tree))
	assert.Equal(t, []Dropped{
		{".github", "in the way of .github/workflows/ci.yml: workflows stay"},
		{".github/workflows/ci.yml", "deleted, kept: workflows stay"},
	}, dropped)
}

// TestImportTellsWhatItCannotRead: what a command made unreadable is left out and named,
// not a failed import (as root, modes do not stop reading and everything is taken).
func TestImportTellsWhatItCannotRead(t *testing.T) {
	testuser.AlsoAsNobody(t)
	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "work")
	writeTree(t, dir, map[string]string{"a.go": "package a\n", "sealed/b.go": "package b\n", "secret.go": "package s\n"})
	require.NoError(t, os.Chmod(filepath.Join(dir, "sealed"), 0))
	require.NoError(t, os.Chmod(filepath.Join(dir, "secret.go"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "sealed"), 0o755) })

	tree, dropped, err := w.Import(dir, ImportOptions{})
	require.NoError(t, err)
	if os.Geteuid() == 0 {
		assert.Empty(t, dropped)
		assert.Len(t, treeFiles(t, w, tree), 3)
		return
	}
	assert.Equal(t, map[string]string{"a.go": "package a\n"}, treeFiles(t, w, tree))
	assert.Equal(t, []Dropped{
		{"sealed", "cannot be read: permission denied"},
		{"secret.go", "cannot be read: permission denied"},
	}, dropped)
}

// TestImportStopsAtItsBounds: a command that writes a million files cannot make a commit
// that takes forever; the files past the bound, in path order, are left out with one note.
func TestImportStopsAtItsBounds(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "aa", "b/1": "11", "b/2": "22", "c.go": "cc"})

	tree, dropped, err := w.Import(dir, ImportOptions{MaxFiles: 2})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.go": "aa", "b/1": "11"}, treeFiles(t, w, tree))
	assert.Equal(t, []Dropped{{"b/2", "the tree would hold more than 2 files: this file and all after it are left out"}}, dropped)

	tree, dropped, err = w.Import(dir, ImportOptions{MaxBytes: 7})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.go": "aa", "b/1": "11", "b/2": "22"}, treeFiles(t, w, tree))
	assert.Equal(t, []Dropped{{"c.go", "the tree would hold more than 7 bytes: this file and all after it are left out"}}, dropped)
}
