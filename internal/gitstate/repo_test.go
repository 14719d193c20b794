package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A linked worktree (git worktree add) keeps its objects in the main repository: reading
// its HEAD must follow the .git file to them.
func TestReadHeadOfALinkedWorktree(t *testing.T) {
	dir := t.TempDir()
	main, linked := filepath.Join(dir, "main"), filepath.Join(dir, "linked")
	git := func(in string, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", in, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	require.NoError(t, os.MkdirAll(main, 0o755))
	git(main, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(main, "a.go"), []byte("package a\n"), 0o644))
	git(main, "add", "a.go")
	git(main, "commit", "-q", "-m", "one")
	git(main, "worktree", "add", "-q", "-b", "feature", linked)
	require.NoError(t, os.WriteFile(filepath.Join(linked, "b.go"), []byte("package a\n"), 0o644))
	git(linked, "add", "b.go")
	git(linked, "commit", "-q", "-m", "two")

	files, _, err := ReadHead(linked)
	require.NoError(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"a.go", "b.go"}, paths, "the worktree's own HEAD, not the main one's")
}
