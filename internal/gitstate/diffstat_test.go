package gitstate

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/tamperscan"
)

// DiffStat must count lines as git itself does: the report's figures are checked
// against `git diff --numstat` on the same two commits.
func TestDiffStatAgreesWithGit(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "workshop.git"))
	require.NoError(t, err)
	base, err := w.WriteFiles([]File{
		{Path: "go.mod", Content: []byte("module x\n")},
		{Path: "semver.go", Content: []byte("package x\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int { return 2 }\n")},
		{Path: "gone.go", Content: []byte("package x\n// old\n")},
	})
	require.NoError(t, err)
	next, err := w.WriteFiles([]File{
		{Path: "go.mod", Content: []byte("module x\n")},
		{Path: "semver.go", Content: []byte("package x\n\nfunc A() int {\n\treturn 10\n}\n\nfunc B() int { return 2 }\n\nfunc C() {}\n")},
		{Path: "new/helper.go", Content: []byte("package new\n\nvar X = 1\n")},
	})
	require.NoError(t, err)
	c1, err := w.Commit("refs/heads/a", base, "a")
	require.NoError(t, err)
	c2, err := w.Commit("refs/heads/b", next, "b")
	require.NoError(t, err)

	got, err := w.DiffStat(c1, c2)
	require.NoError(t, err)
	out, err := exec.Command("git", "--git-dir", w.Path(), "diff", "--numstat", c1, c2).Output()
	require.NoError(t, err)
	var want []FileStat
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		added, _ := strconv.Atoi(f[0])
		deleted, _ := strconv.Atoi(f[1])
		want = append(want, FileStat{Path: f[2], Added: added, Deleted: deleted})
	}
	assert.Equal(t, want, got)
	assert.Len(t, got, 3, "semver.go changed, gone.go deleted, new/helper.go added")

	same, err := w.DiffStat(base, base)
	require.NoError(t, err)
	assert.Empty(t, same)
	fromEmpty, err := w.DiffStat("", base)
	require.NoError(t, err)
	assert.Len(t, fromEmpty, 3)
}

// AddedLines gives the tamper scan the lines a change adds, numbered as in the new file;
// an unchanged file, a deleted one and the lines a change keeps are not in it.
func TestAddedLinesAreNumberedAsInTheNewFile(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "workshop.git"))
	require.NoError(t, err)
	base, err := w.WriteFiles([]File{
		{Path: "go.mod", Content: []byte("module x\n")},
		{Path: "calc.go", Content: []byte("package x\n\nfunc A() int {\n\treturn 1\n}\n")},
		{Path: "gone.go", Content: []byte("package x\n")},
	})
	require.NoError(t, err)
	next, err := w.WriteFiles([]File{
		{Path: "go.mod", Content: []byte("module x\n")},
		{Path: "calc.go", Content: []byte("package x\n\nimport \"runtime\"\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() { runtime.Callers(0, nil) }\n")},
		{Path: "vendor/m/m.go", Content: []byte("package m\n")},
	})
	require.NoError(t, err)

	got, err := w.AddedLines(base, next)
	require.NoError(t, err)
	assert.Equal(t, tamperscan.Change{
		{Path: "calc.go", Added: []tamperscan.Line{{Number: 3, Text: `import "runtime"`}, {Number: 4, Text: ""}, {Number: 8, Text: ""}, {Number: 9, Text: "func B() { runtime.Callers(0, nil) }"}}},
		{Path: "vendor/m/m.go", Added: []tamperscan.Line{{Number: 1, Text: "package m"}}},
	}, got)
}
