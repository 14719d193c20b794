package gitstate

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReservedNamesAreTheOnesGitRefuses asks git itself: each name goes into a tree of
// its own, and `git fsck` says which trees hold a .git and which .gitmodules it checks.
// Every name git objects to must be one we reserve; ordinary names must stay usable.
func TestReservedNamesAreTheOnesGitRefuses(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: needs git to say which names it refuses")
	}
	dotGitNames := []string{".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", ".git::$INDEX_ALLOCATION",
		"git~1", "GIT~1", "git~1 .", ".g\u200cit", "\u200c.git", ".git\ufeff", ".gi\u206at"}
	modulesNames := []string{".gitmodules", ".GITMODULES", ".gitmodules.", ".gitmodules ", ".gitmodules::$DATA",
		"gitmod~1", "GITMOD~4", "gi7eba~1", "gi7eb~12", ".g\u200citmodules"}
	ordinary := []string{".github", ".gitignore", ".gitattributes", ".gitx", "git", ".git~1", "x.git", "git~2",
		"..git", "gitmodules", ".gitmodulesx", "gitmod~5", "modules", "Git", "main.go"}

	w, err := Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	trees := map[string]string{} // tree or blob hash -> name
	for _, name := range append(append(append([]string{}, dotGitNames...), modulesNames...), ordinary...) {
		// A .gitmodules git would refuse: a URL that is an option. Each name its own blob.
		blob, err := w.writeBlob([]byte(fmt.Sprintf("# %q\n[submodule \"x\"]\n\tpath = x\n\turl = -evil\n", name)))
		require.NoError(t, err)
		obj := w.repo.Storer.NewEncodedObject()
		require.NoError(t, (&object.Tree{Entries: []object.TreeEntry{{Name: name, Mode: filemode.Regular, Hash: blob}}}).Encode(obj))
		tree, err := w.repo.Storer.SetEncodedObject(obj)
		require.NoError(t, err)
		trees[tree.String()], trees[blob.String()] = name, name
	}
	out, _ := exec.Command("git", "--git-dir", w.Path(), "fsck", "--no-dangling").CombinedOutput()
	gitDotGit, gitModules := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		for hash, name := range trees {
			switch {
			case strings.Contains(line, hash) && strings.Contains(line, "hasDotgit"):
				gitDotGit[name] = true
			case strings.Contains(line, hash) && strings.Contains(line, "gitmodulesUrl"):
				gitModules[name] = true
			}
		}
	}
	require.NotEmpty(t, gitDotGit, "git fsck said nothing:\n%s", out)
	for _, name := range dotGitNames {
		assert.True(t, gitDotGit[name], "git takes %q for .git (fsck:\n%s)", name, out)
		assert.True(t, ReservedName(name), "%q is reserved", name)
	}
	for _, name := range modulesNames {
		assert.True(t, gitModules[name], "git takes %q for .gitmodules", name)
		assert.True(t, ModulesName(name), "%q is .gitmodules", name)
		assert.False(t, ReservedName(name), "%q is not .git", name)
	}
	for _, name := range ordinary {
		assert.False(t, gitDotGit[name] || gitModules[name], "git accepts %q", name)
		assert.False(t, ReservedName(name) || ModulesName(name), "%q is an ordinary name", name)
	}
}
