package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// judgeCache is the Go build cache the judge's tests share (internal/ci's tests use the
// same one): a cold cache costs about a minute of compiling the standard library.
func judgeCache() string {
	if dir := os.Getenv("DIXIT_CI_TEST_CACHE"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "dixit-ci-test-cache")
}

// thirdRunFails fails on its third run, which it reads where the judge's wrapper names
// each run (sandbox.RunEnv).
const thirdRunFails = `package semver

import (
	"os"
	"testing"
)

func TestFailsOnTheThirdRun(t *testing.T) {
	if os.Getenv("DIXIT_RUN") == "3" {
		t.Fatal("third run")
	}
}
`

// `bot classify` gives the verdicts the local judge gives `bot demo` for the same coder
// tree and tests: a pass, a failure at run 1, a build failure and a failure at run 3.
func TestClassifyCommandEqualsTheLocalJudge(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs real tests")
	}
	root := filepath.Join("..", "..", "examples", "semver")
	settings, err := config.Load(filepath.Join(root, "dixit.yml"))
	require.NoError(t, err)
	var tests []ci.Test
	for _, p := range []string{"ivy/1", "ivy/3", "jun/1"} {
		data, err := os.ReadFile(filepath.Join(root, "testers", p, "compare_test.go"))
		require.NoError(t, err)
		tests = append(tests, ci.Test{ID: strings.ReplaceAll(p, "/", "-"), Content: data})
	}
	tests = append(tests, ci.Test{ID: "third-run", Content: []byte(thirdRunFails)})
	coderDir := filepath.Join(root, "coders", "basil", "1") // compares numbers as strings

	// The local judge, on the tree as the demo stores it in the workshop repository.
	ws, err := gitstate.Open(filepath.Join(t.TempDir(), "workshop.git"))
	require.NoError(t, err)
	treeHash, err := ws.ImportDir(coderDir)
	require.NoError(t, err)
	commit, err := ws.Commit("refs/dixit/r/coders/basil", treeHash, "basil 1")
	require.NoError(t, err)
	source, err := ws.Source(commit)
	require.NoError(t, err)
	local, err := ci.NewLocal(ci.LocalOptions{Contract: settings.Test, CacheDir: judgeCache(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer local.Close()
	jobs := make([]ci.Job, len(tests))
	for i, tt := range tests {
		jobs[i] = ci.Job{Coder: "basil", Tree: source, Test: tt}
	}
	want, err := local.Run(context.Background(), settings.Reruns, jobs)
	require.NoError(t, err)
	require.Equal(t, []ci.Outcome{ci.Pass, ci.Fail, ci.BuildFailed, ci.Fail},
		[]ci.Outcome{want[0].Outcome, want[1].Outcome, want[2].Outcome, want[3].Outcome})
	require.Equal(t, 3, want[3].Runs, "the local judge stops at the third run")

	// bot classify, from a batch.json as a backend writes it, on the coder's commit
	// checked out of the same repository.
	work := t.TempDir()
	contract := []byte(`{"preset": "go", "timeout": "30s"}`)
	batch, err := classify.NewBatch("semver-test", "b-1", settings.Reruns, contract, tests)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "batch.json"), batch, 0o644))
	out := filepath.Join(work, "out", "results.json")
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"classify", "--repo", ws.Path(), "--ref", "refs/dixit/r/coders/basil",
		"--tests", filepath.Join(work, "batch.json"), "--coder", "basil", "--out", out, "--cache", judgeCache()}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	t.Log(stdout.String())
	assert.Contains(t, stdout.String(), "third-run                fail at run 3")

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	res, err := classify.ReadResults(f, classify.Expect{Run: "semver-test", Batch: "b-1", Coder: "basil",
		Tree: source.Hash(), Reruns: settings.Reruns, Tests: tests})
	require.NoError(t, err)
	got, err := res.Verdicts(tests)
	require.NoError(t, err)
	for i := range tests {
		assert.Equal(t, want[i].Outcome, got[i].Outcome, tests[i].ID)
		assert.Equal(t, want[i].Runs, got[i].Runs, "%s: %s", tests[i].ID, got[i].Output)
	}
	assert.Equal(t, 1, res.Tests[1].FailedRun)
	assert.Equal(t, 3, res.Tests[3].FailedRun)
	assert.Equal(t, local.Isolation(), res.Isolation)

	// The same tree as a directory (what a workflow's checkout gives) has the same hash.
	err = run(context.Background(), []string{"classify", "--tree", coderDir, "--tests", filepath.Join(work, "batch.json"),
		"--coder", "basil", "--reruns", "2", "--out", out, "--cache", judgeCache()}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	again, err := classify.ParseResults(data)
	require.NoError(t, err)
	assert.Equal(t, source.Hash(), again.Tree)
	assert.Equal(t, 2, again.Reruns)
	assert.Equal(t, ci.Pass, again.Tests[3].Outcome, "two runs never reach the third")
}

func TestClassifyCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.go"), []byte("package x\n"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"classify"}, "--tree DIR or --repo DIR"},
		{[]string{"classify", "--tree", dir}, "give the tests"},
		{[]string{"classify", "--tree", dir, "--tests", dir}, "no contract"},
		{[]string{"classify", "--tree", dir, "--repo", dir}, "not both"},
		{[]string{"classify", "--tree", dir, "--tests", dir, "--contract", filepath.Join(dir, "t.go"), "--config", filepath.Join(dir, "t.go")}, "not both"},
		{[]string{"classify", "--tree", filepath.Join(dir, "nope"), "--tests", dir}, "--tree " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{[]string{"classify", "--tree", dir, "--tests", filepath.Join(dir, "t.go")}, "invalid character"},
		{[]string{"classify", "--tree", dir, "--tests", dir, "extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), c.args, &stdout, &stderr)
		require.Error(t, err, c.args)
		assert.Contains(t, err.Error(), c.want, c.args)
	}
}
