package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
)

// The populations in examples/real are three public repositories with scripted coders
// and testers (issue 20, item 7). Each subtest runs one end to end on caches that start
// empty, so the dependency install is part of what is tested, and checks the outcome
// its README predicts.
const realExamples = "../../examples/real"

// realRun is one population's run, with what the tests read from it.
type realRun struct {
	out   *session.Outcome
	sum   runfile.Summary
	build string // the judge's BuildCache: compiled packages, and deps/ for dependencies
}

// runReal runs examples/real/<name> with a state directory and judge caches of its own,
// all empty: no module cache, virtual environment or node_modules from an earlier run.
func runReal(t *testing.T, name string) realRun {
	t.Helper()
	return runPopulation(t, filepath.Join(realExamples, name))
}

// runPopulation is runReal on a population directory anywhere.
func runPopulation(t *testing.T, population string) realRun {
	t.Helper()
	dir := t.TempDir()
	build := filepath.Join(dir, "build")
	shareCompiled(t, build)
	start := time.Now()
	out, err := session.Run(context.Background(), session.Options{
		Population:  population,
		StateDir:    filepath.Join(dir, "state"),
		BuildCache:  build,
		ResultCache: filepath.Join(dir, "results"),
	})
	require.NoError(t, err)
	t.Logf("%s: %s in %.1fs", filepath.Base(population), out.Result.Outcome, time.Since(start).Seconds())
	var sum runfile.Summary
	data, err := os.ReadFile(out.JSON)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	return realRun{out: out, sum: sum, build: build}
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

// requireRegistry skips an example whose prepare downloads from a registry this machine
// cannot reach: a failed prepare there would say nothing about the judge.
func requireRegistry(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Skipf("the registry at %s is unreachable from here, so the example's prepare cannot download (%v)", url, err)
	}
	resp.Body.Close()
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
func (r realRun) coder(t *testing.T, name string) runfile.Coder {
	t.Helper()
	for _, c := range r.sum.Coders {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no coder %s in summary.json", name)
	return runfile.Coder{}
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

// existing is the detail of each "existing-tests" event of the coder, with its round:
// "1 breaks a, b" or "2 keeps every existing test passing".
func (r realRun) existing(coder string) []string {
	var got []string
	for _, ev := range r.sum.Events {
		if ev.Kind == orchestrate.EvExisting && ev.Agent == coder {
			got = append(got, fmt.Sprintf("%d %s", ev.Round, ev.Detail))
		}
	}
	return got
}

// prepared counts the dependency caches the judge made: one per distinct set of
// manifests that installed (a failed prepare leaves only its lock file).
func (r realRun) prepared(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(r.build, "deps"))
	require.NoError(t, err, "the judge keeps its dependency caches in BuildCache/deps")
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
		}
	}
	return n
}

// realCase is what an example's README predicts.
type realCase struct {
	// vetted is the suite, as realRun.vetted writes it: cy, the wrong coder, fails both
	// tests; the first tests the change, the second guards what the base already did.
	vetted []string
	// breaker passes every vetted test but breaks broken, a test of the repository.
	breaker, broken string
	// noGuard, when set, is why the repository's own tests do not run for this example
	// yet: the check of the breaker is skipped with it.
	noGuard string
}

// checkReal checks what every example's README predicts.
func checkReal(t *testing.T, r realRun, c realCase) {
	t.Helper()
	assert.Equal(t, orchestrate.TestersExhausted, r.sum.Outcome, r.sum.Reason)
	assert.Equal(t, c.vetted, r.vetted())
	assert.GreaterOrEqual(t, r.prepared(t), 1, "the dependencies were installed into an empty cache")
	assert.Equal(t, 2, r.coder(t, "cy").Solves, "cy was told which vetted tests it fails, and fixed them")
	t.Run("the coder that breaks an existing test is caught and told", func(t *testing.T) {
		if c.noGuard != "" {
			t.Skip(c.noGuard)
		}
		require.NotNil(t, r.sum.Existing, "the repository's own tests ran on the base")
		assert.Contains(t, r.sum.Existing.Set.Tests, c.broken)
		told := r.existing(c.breaker)
		require.NotEmpty(t, told)
		assert.True(t, strings.HasPrefix(told[0], "1 breaks ") && strings.Contains(told[0], c.broken),
			"in round 1, before any tester, %s is found to break %s: %q", c.breaker, c.broken, told[0])
		assert.Equal(t, 2, r.coder(t, c.breaker).Solves, "told which test it broke, it repaired it")
		assert.Empty(t, r.coder(t, c.breaker).Breaks, "its final tree keeps the repository's tests passing")
	})
	t.Run("summary.json counts the prepares", func(t *testing.T) {
		assert.GreaterOrEqual(t, r.sum.Judge.Prepares, 1)
	})
}

func TestRealRepositories(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real repositories end to end, dependency installs included")
	}
	// Each run has its own state and caches, and spends much of its time downloading and
	// waiting on its toolchain: they run at once.
	for _, sub := range []struct {
		name string
		test func(*testing.T)
	}{
		{"flect", testRealFlect},
		{"flect without the regression guard, a failing prepare is a coder without a vote", testFlectUnguarded},
		{"humanize", testRealHumanize},
		{"destr", testRealDestr},
	} {
		t.Run(sub.name, func(t *testing.T) {
			t.Parallel()
			sub.test(t)
		})
	}
}

// requireFlect skips flect's runs where its toolchain or its registry is missing.
func requireFlect(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	requireRegistry(t, "https://proxy.golang.org/github.com/stretchr/testify/@v/v1.8.1.info")
}

// flect: a Go module with testify, a spec on its name package. eve's first go.mod
// requires a module that does not exist; its second adds golang.org/x/text.
func testRealFlect(t *testing.T) {
	requireFlect(t)
	r := runReal(t, "flect")
	checkReal(t, r, realCase{
		vetted: []string{
			"tia-1 name/key_slashes_test.go cy " + runfile.TestsTheChange,
			"uma-1 name/key_guard_test.go cy " + runfile.GuardsExisting,
		},
		breaker: "dee", broken: "github.com/gobuffalo/flect/name.Test_URL",
	})
	// eve's new dependency was prepared (a second cache beside the base's) and built:
	// it passes every test it was judged on, and it fails none of the vetted tests.
	assert.Equal(t, 2, r.prepared(t), "the base's go.mod, and eve's with golang.org/x/text")
	assert.Equal(t, 2, r.coder(t, "eve").Solves)
	for _, c := range r.cells("eve") {
		assert.Equal(t, "pass", c.Outcome, "%s on eve: %s", c.Test, c.Output)
	}
	t.Run("a failing prepare is reported as such", func(t *testing.T) {
		// eve's first go.mod requires github.com/gobuffalo/segments, which does not
		// exist: the guard finds it in round 1 and eve hears once why.
		told := r.existing("eve")
		require.NotEmpty(t, told)
		assert.NotContains(t, told[0], "breaks ")
		assert.Contains(t, told[0], "github.com/gobuffalo/segments")
	})
}

// humanize: a Python project with a src/ layout and pyproject.toml, a spec on its
// filesize module.
func testRealHumanize(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("the example's dixit.yml names Debian's /usr/bin/python3 with pytest, which is missing (apt-get install python3-pytest)")
	}
	r := runReal(t, "humanize")
	checkReal(t, r, realCase{
		vetted: []string{
			"tia-1 tests/test_filesize_separator.py cy " + runfile.TestsTheChange,
			"uma-1 tests/test_filesize_named.py cy " + runfile.GuardsExisting,
		},
		breaker: "dee", broken: "tests/test_filesize.py::test_naturalsize[test_args53-300B]",
	})
}

// destr: a TypeScript package tested with vitest, its devDependencies from npm.
func testRealDestr(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH (apt-get install nodejs npm): the example's prepare is npm ci")
	}
	requireRegistry(t, "https://registry.npmjs.org/vitest")
	r := runReal(t, "destr")
	checkReal(t, r, realCase{
		vetted: []string{
			"tia-1 test/reviver.test.ts cy " + runfile.TestsTheChange,
			"uma-1 test/long-numbers.test.ts cy " + runfile.GuardsExisting,
		},
		breaker: "dee", broken: "test/index.test.ts::destr > prevents prototype pollution",
	})
}

// testFlectUnguarded runs flect with existing_tests: off, so that eve's go.mod, which
// requires a module that does not exist, meets the classifications: there it is
// prepare_failed with the installer's words, has no vote, and fails no test.
func testFlectUnguarded(t *testing.T) {
	requireFlect(t)
	dir := filepath.Join(t.TempDir(), "flect-unguarded")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(realExamples, "flect"))))
	settings := filepath.Join(dir, "dixit.yml")
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	off := strings.Replace(string(data), "existing_tests: affected", "existing_tests: off", 1)
	require.NotEqual(t, string(data), off, "flect's dixit.yml sets existing_tests: affected")
	require.NoError(t, os.WriteFile(settings, []byte(off), 0o644))

	r := runPopulation(t, dir)
	assert.Equal(t, orchestrate.TestersExhausted, r.sum.Outcome, r.sum.Reason)
	// 3 of the 4 coders that could be prepared pass each test: IDEAL, and eve is in
	// neither list.
	assert.Equal(t, []string{
		"tia-1 name/key_slashes_test.go cy " + runfile.TestsTheChange,
		"uma-1 name/key_guard_test.go cy " + runfile.GuardsExisting,
	}, r.vetted())
	for _, v := range r.sum.Vetted {
		assert.Equal(t, []string{"ada", "bo", "dee"}, v.PassedBy, v.ID)
	}
	eve := r.cells("eve")
	require.Len(t, eve, 2, "eve's cells in the two classifications")
	for _, c := range eve {
		assert.Equal(t, "prepare_failed", c.Outcome, c.Test)
		assert.Contains(t, c.Output, "github.com/gobuffalo/segments", "the installer's words name the module")
	}
	assert.Equal(t, 2, r.coder(t, "eve").Solves, "told that its dependencies did not install, eve fixed its go.mod")
	assert.Equal(t, 1, r.coder(t, "dee").Solves, "with no guard, nothing tells dee it broke name.Test_URL")
}
