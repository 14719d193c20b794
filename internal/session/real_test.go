package session_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/session"
)

// The populations in examples/real are three public repositories with scripted coders
// and testers (issue 20, item 7). Each subtest runs one end to end on caches that start
// empty, so the dependency install is part of what is tested, and checks the outcome
// its README predicts.
const realExamples = "../../examples/real"

// realRun is one population's run, with what the tests read from it.
type realRun struct {
	out *session.Outcome
	sum report.Summary
}

// runReal runs examples/real/<name> with a state directory and judge caches of its own,
// all empty: no module cache, virtual environment or node_modules from an earlier run.
func runReal(t *testing.T, name string) realRun {
	t.Helper()
	dir := os.Getenv("DIXIT_REAL_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	build := filepath.Join(dir, "build")
	shareCompiled(t, build)
	start := time.Now()
	out, err := session.Run(context.Background(), session.Options{
		Population:  filepath.Join(realExamples, name),
		StateDir:    filepath.Join(dir, "state"),
		BuildCache:  build,
		ResultCache: filepath.Join(dir, "results"),
	})
	require.NoError(t, err)
	t.Logf("%s: %s in %.1fs (judge: %d prepares, %.1fs preparing)", name, out.Result.Outcome,
		time.Since(start).Seconds(), out.Summary.Judge.Prepares, out.Summary.Judge.PrepareSeconds)
	t.Logf("report: %s", out.Report)
	var sum report.Summary
	data, err := os.ReadFile(out.JSON)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	return realRun{out: out, sum: sum}
}

// shareCompiled lets the judge's Go build cache, which holds compiled packages and never
// a dependency, be the one the other session tests warm (buildCache), when they have:
// a cold one costs about 40 s of compiling the standard library on CI's two cores. The
// dependency caches beside it (build/deps) stay empty.
func shareCompiled(t *testing.T, build string) {
	t.Helper()
	shared := filepath.Join(buildCache, "go-build")
	if _, err := os.Stat(shared); err != nil {
		return
	}
	require.NoError(t, os.MkdirAll(build, 0o755))
	require.NoError(t, os.Symlink(shared, filepath.Join(build, "go-build")))
}

// vetted is "id path failed-by kind" for each vetted test, in suite order.
func (r realRun) vetted() []string {
	var got []string
	for _, v := range r.sum.Vetted {
		got = append(got, v.ID+" "+v.Path+" "+strings.Join(v.FailedBy, ",")+" "+v.OnBase.Kind())
	}
	return got
}

// coder is the final state of the named coder.
func (r realRun) coder(t *testing.T, name string) report.Coder {
	t.Helper()
	for _, c := range r.sum.Coders {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no coder %s in summary.json", name)
	return report.Coder{}
}

// cells are every classification's verdicts for the named coder.
func (r realRun) cells(coder string) []orchestrate.Cell {
	var got []orchestrate.Cell
	for _, ev := range r.sum.Events {
		if ev.Kind != orchestrate.EvClassify {
			continue
		}
		for _, c := range ev.Cells {
			if c.Coder == coder {
				got = append(got, c)
			}
		}
	}
	return got
}

// toldOf reports whether the coder was told, in a message of the run, about the test.
func (r realRun) toldOf(t *testing.T, coder, test string) bool {
	t.Helper()
	for _, ev := range r.out.Result.Events {
		if ev.Agent == coder && strings.Contains(ev.Detail, test) {
			return true
		}
	}
	return false
}

func TestRealRepositories(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real repositories end to end, dependency installs included")
	}
	t.Run("flect", testRealFlect)
	t.Run("humanize", testRealHumanize)
	t.Run("destr", testRealDestr)
}

// flect: a Go module with testify, a spec on its name package (examples/real/flect/README.md).
func testRealFlect(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	r := runReal(t, "flect")
	assert.Equal(t, orchestrate.TestersExhausted, r.sum.Outcome, r.sum.Reason)
	assert.GreaterOrEqual(t, r.sum.Judge.Prepares, 1, "testify was downloaded into an empty dependency cache")
	assert.Equal(t, []string{
		"tia-1 name/key_slashes_test.go cy " + report.TestsTheChange,
		"uma-1 name/key_guard_test.go cy " + report.GuardsExisting,
	}, r.vetted())

	// eve's go.mod requires a module that does not exist: its prepare fails, it has no
	// vote, and its output says which module.
	eve := r.cells("eve")
	require.NotEmpty(t, eve)
	assert.Equal(t, "prepare_failed", eve[0].Outcome)
	assert.Contains(t, eve[0].Output, "github.com/gobuffalo/segments")
	assert.Equal(t, 2, r.coder(t, "eve").Solves, "eve was told its prepare failed and fixed its go.mod")

	// dee passes both vetted tests but its File change breaks the existing Test_URL.
	assert.Equal(t, 2, r.coder(t, "dee").Solves, "dee was asked to repair the test it broke")
	assert.Empty(t, r.coder(t, "dee").Breaks, "dee's final tree keeps the repository's tests passing")
	require.NotNil(t, r.sum.Existing)
	assert.Contains(t, r.sum.Existing.Set.Tests, "github.com/gobuffalo/flect/name.Test_URL")
}

// humanize: a Python project with a src/ layout, a spec on its filesize module
// (examples/real/humanize/README.md).
func testRealHumanize(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("Debian's /usr/bin/python3 with pytest (apt-get install python3-pytest) is what the example's dixit.yml names, and it is missing")
	}
	r := runReal(t, "humanize")
	assert.Equal(t, orchestrate.TestersExhausted, r.sum.Outcome, r.sum.Reason)
	assert.Equal(t, []string{
		"tia-1 tests/test_filesize_separator.py cy " + report.TestsTheChange,
		"uma-1 tests/test_filesize_named.py cy " + report.GuardsExisting,
	}, r.vetted())
	assert.Equal(t, 2, r.coder(t, "dee").Solves, "dee was asked to repair the tests it broke")
}

// destr: a TypeScript package tested with vitest, its devDependencies from npm
// (examples/real/destr/README.md).
func testRealDestr(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH (apt-get install nodejs npm): the example's prepare is npm ci")
	}
	r := runReal(t, "destr")
	assert.Equal(t, orchestrate.TestersExhausted, r.sum.Outcome, r.sum.Reason)
	assert.Equal(t, []string{
		"tia-1 test/reviver.test.ts cy " + report.TestsTheChange,
		"uma-1 test/long-numbers.test.ts cy " + report.GuardsExisting,
	}, r.vetted())
}
