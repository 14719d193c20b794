package gitstate

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
)

// A pull request's branch must share the base branch's history, or GitHub will not open
// the pull request ("entirely different commit histories"); and its diff must be what the
// implementation changes, so that a workflow file it left alone is not pushed again. The
// branch moved on since the run's base: the commit still goes on the run's base.
func TestPushOntoTheBaseRevision(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.Repo("calc", "main", map[string]string{
		"go.mod": "module example.com/calc\n", "calc.go": "package calc\n", ".github/workflows/ci.yml": "on: push\n",
	})
	gitOut := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", srv.Path("calc")}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	base := gitOut("rev-parse", "main")
	moved := srv.Commit("calc", "main", map[string]string{"go.mod": "module example.com/calc\n", "calc.go": "package calc // later\n",
		".github/workflows/ci.yml": "on: push\n"}, "refs/heads/main")

	files := []File{
		{Path: "go.mod", Content: []byte("module example.com/calc\n")},
		{Path: "calc.go", Content: []byte("package calc\n\nfunc Add(a, b int) int { return a + b }\n")},
		{Path: "calc_dixit_t1_test.go", Content: []byte("package calc\n")},
		{Path: ".github/workflows/ci.yml", Content: []byte("on: push\n")},
	}
	commit, err := PushOnto(context.Background(), Onto{URL: url, Token: srv.Token, Base: base, Branch: "dixit/7-pr", Message: "Dixit: #7"}, files)
	require.NoError(t, err)

	assert.Equal(t, commit, gitOut("rev-parse", "dixit/7-pr"))
	assert.Equal(t, base, gitOut("rev-parse", "dixit/7-pr^"), "the run's base is the parent, not the branch's tip")
	assert.Equal(t, base, gitOut("merge-base", "dixit/7-pr", moved), "the branch shares main's history")
	assert.Equal(t, "M\tcalc.go\nA\tcalc_dixit_t1_test.go", gitOut("diff", "--name-status", base, "dixit/7-pr"),
		"the diff is the implementation and its tests; the workflow file is untouched")
	gitOut("fsck", "--strict") // the pushed objects are whole

	// Pushed again (a run that stopped again), the branch moves to the new commit.
	files[1].Content = []byte("package calc\n\nfunc Add(a, b int) int { return b + a }\n")
	again, err := PushOnto(context.Background(), Onto{URL: url, Token: srv.Token, Base: base, Branch: "dixit/7-pr", Message: "Dixit: #7"}, files)
	require.NoError(t, err)
	assert.Equal(t, again, gitOut("rev-parse", "dixit/7-pr"))

	_, err = PushOnto(context.Background(), Onto{URL: url, Token: srv.Token, Base: "main", Branch: "x"}, files)
	assert.ErrorContains(t, err, `"main": not a commit hash`)
	_, err = PushOnto(context.Background(), Onto{URL: url, Token: "wrong", Base: base, Branch: "x"}, files)
	assert.Error(t, err, "a bad token is refused")
}
