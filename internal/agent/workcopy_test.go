package agent

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/testuser"
)

// hostile is a turn of a coder whose commands go after the machinery: a .git file where
// git looks for a repository, another deeper down, modes that lock its own work, and a
// name git refuses to check out on Windows.
const hostile = `echo 'package x' > x.go
echo 'gitdir: /nowhere' > .git
mkdir -p sub/.GIT && echo '[core]' > sub/.GIT/config
mkdir -p sealed/deep && echo 'package deep' > sealed/deep/d.go && chmod 000 sealed
mkdir ro && echo 'package ro' > ro/r.go && chmod 555 ro
echo 'package s' > secret.go && chmod 000 secret.go
echo 'package w' > 'win\dows.go'`

// newExternal is the same coder as a fresh process would make it: the same workshop,
// run, name and directory.
func newExternal(t *testing.T, w *gitstate.Workshop, dir, base, command string) *External {
	t.Helper()
	e, err := NewExternal(ExternalOptions{
		Options: Options{Settings: config.AgentSettings{Name: "ext"}, Spec: "Write x.go.", Workshop: w, Run: "r"},
		Command: command, Timeout: time.Minute, Dir: dir, Base: base,
	})
	require.NoError(t, err)
	return e
}

// lock does to the working copy what a command killed mid-turn may leave behind.
func lock(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "locked", "in"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "locked", "in", "f"), []byte("x"), 0o644))
	require.NoError(t, os.Chmod(filepath.Join(dir, "locked", "in"), 0o555))
	require.NoError(t, os.Chmod(filepath.Join(dir, "locked"), 0))
}

// TestACoderCannotWedgeItsRun: a coder's commands write .git files and chmod their work
// away, as root and as an unprivileged user. The commit keeps the work and leaves the
// .git files out with a note; a rollback, and a resumed run in a fresh process, both
// get through a locked working copy, and the resumed turn makes the very same commit.
func TestACoderCannotWedgeItsRun(t *testing.T) {
	testuser.AlsoAsNobody(t)
	ctx := context.Background()
	w, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	tree, err := w.WriteFiles([]gitstate.File{{Path: "README", Content: []byte("base\n")}})
	require.NoError(t, err)
	base, err := w.Commit("refs/dixit/r/base", tree, "base")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "work")
	t.Cleanup(func() { lockedCleanup(dir) })

	e := newExternal(t, w, dir, base, hostile)
	start, err := e.Save(ctx)
	require.NoError(t, err)
	commit, err := e.Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err, "the commit goes through")
	assert.Equal(t, map[string]string{
		"README": "base\n", "x.go": "package x\n", "sealed/deep/d.go": "package deep\n", "ro/r.go": "package ro\n", "secret.go": "package s\n",
	}, files(t, w, commit), "everything the coder wrote is kept, .git files aside")
	msg, err := w.Message(commit)
	require.NoError(t, err)
	assert.Equal(t, "ext: solve 1\n\nLeft out of the working copy:\n"+
		"- \".git\": git reserves this name\n- \"sub/.GIT\": git reserves this name\n"+
		"- \"win\\\\dows.go\": a backslash in a name\n", msg)
	assert.NoFileExists(t, filepath.Join(dir, ".git"), "the working copy holds what was committed")

	lock(t, dir)
	require.NoError(t, e.Restore(ctx, start), "a rollback gets through a locked working copy")
	assert.Equal(t, []string{"README"}, listDir(t, dir))

	lock(t, dir)
	again := newExternal(t, w, dir, base, hostile) // a resumed run
	assert.Equal(t, []string{"README"}, listDir(t, dir), "a resumed run starts clean")
	redone, err := again.Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, commit, redone, "the resumed turn makes the same commit")
}

// TestACoderCannotChangeCIWorkflows: a coder that adds a workflow and rewrites another,
// through its tools and through a command, ends with the repository's workflows as
// they were, a refusal it could read, and a note on its commit. The escalation branch
// is built from that tree, so it cannot carry a workflow either.
func TestACoderCannotChangeCIWorkflows(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, "amber")
	w := r.opts.Workshop
	tree, err := w.WriteFiles([]gitstate.File{
		{Path: "go.mod", Content: []byte("module x\n")},
		{Path: ".github/workflows/ci.yml", Content: []byte("on: pull_request\n")},
	})
	require.NoError(t, err)
	base, err := w.Commit("refs/dixit/r/base2", tree, "base")
	require.NoError(t, err)
	c, err := NewCoder(r.opts, r.dir, base, shellRunner(t))
	require.NoError(t, err)

	evil := args(map[string]string{"path": ".github/workflows/evil.yml", "content": "on: push\njobs: {x: {runs-on: ubuntu-latest, steps: [{run: env}]}}\n"})
	run := args(map[string]string{"command": "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/evil.yml && " +
		"echo 'on: pull_request_target' > .github/workflows/ci.yml && echo 'gitdir: /x' > .git"})
	r.srv.Enqueue(
		llmtest.Calls(llmtest.ToolCall{ID: "1", Name: "write_file", Arguments: evil}),
		llmtest.Calls(llmtest.ToolCall{ID: "2", Name: "run_command", Arguments: run}),
		llmtest.Calls(write("3", "package x\n")),
		llmtest.Calls(finish))
	commit, err := c.Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err)

	second := r.srv.Requests()[1]
	assert.Equal(t, "error: .github/workflows/evil.yml cannot be written: the repository's CI workflows (.github/workflows/) stay as they are",
		second.Messages[len(second.Messages)-1].Content, "the coder reads why its write was refused")
	third := r.srv.Requests()[2]
	assert.Equal(t, "exit code 0\n(no output)", third.Messages[len(third.Messages)-1].Content, "the command ran")
	assert.Equal(t, map[string]string{"go.mod": "module x\n", ".github/workflows/ci.yml": "on: pull_request\n", "x.go": "package x\n"},
		files(t, w, commit), "no workflow added or changed")
	msg, err := w.Message(commit)
	require.NoError(t, err)
	assert.Equal(t, "amber: solve 1\n\nLeft out of the working copy:\n"+
		"- \".git\": git reserves this name\n"+
		"- \".github/workflows/ci.yml\": the repository's CI workflows (.github/workflows/) stay as they are\n"+
		"- \".github/workflows/evil.yml\": the repository's CI workflows (.github/workflows/) stay as they are\n", msg)
	assert.NoFileExists(t, filepath.Join(r.dir, ".github", "workflows", "evil.yml"))
	data, err := os.ReadFile(filepath.Join(r.dir, ".github", "workflows", "ci.yml"))
	require.NoError(t, err)
	assert.Equal(t, "on: pull_request\n", string(data), "the working copy shows the workflow as it is")
}

// shellRunner runs commands through the real local judge, sandboxed by bubblewrap.
func shellRunner(t *testing.T) *ci.Local {
	t.Helper()
	contract, ok := languages.Preset("go")
	require.True(t, ok)
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(), Parallel: 1,
		Sandbox: ci.SandboxBwrap, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Skipf("skipped: no working bubblewrap sandbox on this host (install bwrap to run it): %v", err)
	}
	t.Cleanup(func() { judge.Close() })
	return judge
}

// listDir lists the paths of the regular files under dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	}))
	return out
}

// lockedCleanup lets t.TempDir remove a tree a failed test left locked.
func lockedCleanup(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}

// TestAnExternalCoderThatRemovesItsDirectoryCommitsNothing: a command that deletes its
// own working copy leaves an empty solution, not a turn that fails on every resume.
func TestAnExternalCoderThatRemovesItsDirectoryCommitsNothing(t *testing.T) {
	e, w := externalCoder(t, `echo 'package x' > x.go; d=$PWD; cd /; rm -rf "$d"`, time.Minute)
	commit, err := e.Solve(context.Background(), orchestrate.Turn{Message: "go", Draw: 1})
	require.NoError(t, err)
	assert.Empty(t, files(t, w, commit))
	assert.DirExists(t, e.opts.Dir)
}

// TestNotesQuoteWhatTheCoderNamed: a path in a commit note is shown escaped, closes no
// issue, mentions no one and stays short.
func TestNotesQuoteWhatTheCoderNamed(t *testing.T) {
	msg := commitMessage("amber", 2, []gitstate.Dropped{
		{Path: ".github/workflows/fixes #1 @team.yml", Why: "kept"},
		{Path: "sub/.g\u200cit", Why: "reserved"},
		{Path: strings.Repeat("é", 300), Why: "long"},
	})
	lines := strings.Split(msg, "\n")
	assert.Equal(t, `- ".github/workflows/fixes \x231 \x40team.yml": kept`, lines[3])
	assert.Equal(t, `- "sub/.g\u200cit": reserved`, lines[4])
	assert.Less(t, len(lines[5]), 700)
	assert.NotContains(t, msg, "#1")
	assert.NotContains(t, msg, "@team")
}
