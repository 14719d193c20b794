package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

func externalCoder(t *testing.T, command string, timeout time.Duration) (*External, *gitstate.Workshop) {
	t.Helper()
	w, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	tree, err := w.WriteFiles([]gitstate.File{{Path: "README", Content: []byte("base\n")}})
	require.NoError(t, err)
	base, err := w.Commit("refs/dixit/r/base", tree, "base")
	require.NoError(t, err)
	e, err := NewExternal(ExternalOptions{
		Options: Options{Settings: config.AgentSettings{Name: "ext"}, Spec: "Write x.go.", Workshop: w, Run: "r"},
		Command: command, Timeout: timeout, Dir: filepath.Join(t.TempDir(), "work"), Base: base,
	})
	require.NoError(t, err)
	return e, w
}

func TestExternalCoderGetsItsHistoryOnStdinAndItsDirIsTheSolution(t *testing.T) {
	ctx := context.Background()
	e, w := externalCoder(t, `cat > last-prompt.txt; echo "package x // draw $DIXIT_DRAW" > x.go`, time.Minute)

	first, err := e.Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err)
	files := map[string]string{}
	all, err := w.Files(first)
	require.NoError(t, err)
	for _, f := range all {
		files[f.Path] = string(f.Content)
	}
	assert.Equal(t, "base\n", files["README"], "the working copy starts at the base revision")
	assert.Equal(t, "package x // draw 1\n", files["x.go"])
	assert.Contains(t, files["last-prompt.txt"], "Write x.go.")
	assert.Contains(t, files["last-prompt.txt"], "Please implement the specification.")

	cp, err := e.Save(ctx)
	require.NoError(t, err)
	second, err := e.Solve(ctx, orchestrate.Turn{Message: "Your code was checked: Test 1 fails.", Draw: 2})
	require.NoError(t, err)
	assert.NotEqual(t, first, second)
	prompt, err := os.ReadFile(filepath.Join(e.opts.Dir, "last-prompt.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(prompt), "Test 1 fails.", "feedback reaches the agent")

	require.NoError(t, e.Restore(ctx, cp))
	got, err := e.Workspace(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, got)
	data, err := os.ReadFile(filepath.Join(e.opts.Dir, "x.go"))
	require.NoError(t, err)
	assert.Equal(t, "package x // draw 1\n", string(data), "a rollback resets the working copy")
	assert.NotContains(t, strings.Join(e.history, "\n"), "Test 1 fails.", "and what the agent was told since")
}

func TestExternalCoderThatHangsOrFailsStillYieldsItsWorkingCopy(t *testing.T) {
	ctx := context.Background()
	e, w := externalCoder(t, `echo partial > part.txt; sleep 60`, 300*time.Millisecond)
	began := time.Now()
	commit, err := e.Solve(ctx, orchestrate.Turn{Message: "go", Draw: 1})
	require.NoError(t, err)
	assert.Less(t, time.Since(began), 10*time.Second, "the turn's timeout kills the command")
	files, err := w.Files(commit)
	require.NoError(t, err)
	assert.Len(t, files, 2)

	failing, _ := externalCoder(t, `echo oops >&2; ln -s /etc/passwd leak; exit 3`, time.Minute)
	commit, err = failing.Solve(ctx, orchestrate.Turn{Message: "go", Draw: 1})
	require.NoError(t, err)
	files, err = failing.opts.Workshop.Files(commit)
	require.NoError(t, err)
	for _, f := range files {
		assert.NotEqual(t, "leak", f.Path, "symbolic links never enter a solution")
	}
}
