package swepop_test

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
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/swebench"
	"github.com/dixit-bot/dixit/internal/swepop"
	"github.com/dixit-bot/dixit/internal/vet"
)

// e2eInstance is the sympy issue CI plays end to end: its coders' change reaches one of
// sympy's test files, so the guard costs seconds, and its first coders need a human's
// replace before the testers are heard, as real agents' patches often do.
const e2eInstance = "sympy__sympy-23824"

// One real sympy issue, end to end, as `bot run --population`, `bot decide` and
// `bot vet` play it: real agents' patches as coders and real LLM test patches as testers
// on sympy's real tree, in the judge's sandbox, the repository's affected tests run on
// the base as the coders' changes reach them. The third coder breaks sympy's own tests
// and cannot mend them (a recorded patch has one version): the run stops, a human
// replaces it with the next patch of the pool, and the run goes on. Every verdict of the
// run on a proposal, and the held-out patch's, must be the pass matrix's, computed
// independently one pytest session per tree (internal/swebench, data/swe-sympy-matrix).
func TestASympyIssueRunsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sympy's tests in the judge's sandbox")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest, mpmath").Run(); err != nil {
		t.Skipf("Debian's python3 with pytest and mpmath runs sympy (apt-get install python3-pytest python3-mpmath): %v", err)
	}
	dir := corpus(t)
	c, err := swebench.LoadCorpus(dir, e2eInstance)
	require.NoError(t, err)
	inst := c.Instances[0]
	require.NoError(t, c.LoadPatches(inst))
	bases, err := swebench.OpenBases(filepath.Join(dir, "bases.git"))
	require.NoError(t, err)
	w, err := swepop.Request{Corpus: c, Bases: bases, Coders: 3, Testers: 6, HeldOut: 2, Out: t.TempDir()}.Write(inst)
	require.NoError(t, err)
	matrix := readMatrix(t, e2eInstance, w.Names)

	state := t.TempDir()
	host := session.Terminal{Out: logWriter{t}}
	opts := session.Options{Population: w.Dir, StateDir: state, Host: host}
	out, err := session.Run(context.Background(), opts)
	require.NoError(t, err)
	require.Equal(t, orchestrate.CodersStuck, out.Result.Outcome, out.Result.Reason)
	stuck := out.Summary.Evidence.Stuck
	require.NotNil(t, stuck)
	require.Equal(t, "agentless_gpt4o2", stuck.Coder, "it breaks sympy's own gamma-matrix tests")
	assert.NotEmpty(t, stuck.Failing)

	opts.RunID = out.Summary.Run
	_, err = session.Decide(state, opts.RunID, session.Ask{ID: "e2e-replace", Verb: "replace", Args: []string{stuck.Coder}, By: "ci", At: time.Now()})
	require.NoError(t, err)
	out, err = session.Run(context.Background(), opts)
	require.NoError(t, err)
	res := out.Result
	t.Logf("%s: %s (%s), %d vetted", e2eInstance, res.Outcome, res.Reason, len(res.Vetted))

	compared := 0
	for _, ev := range res.Events {
		if ev.Kind != orchestrate.EvClassify {
			continue
		}
		for _, cell := range ev.Cells {
			if want, ok := matrix.cell(t, cell.Coder, ev.Agent); ok {
				assert.Equal(t, want, cell.Outcome == "pass", "%s on %s's test: the run and the pass matrix disagree (%s)", cell.Coder, ev.Agent, cell.Outcome)
				compared++
			}
		}
	}
	assert.GreaterOrEqual(t, compared, 18, "every tester's proposal was classified on every coder")
	assert.Contains(t, out.Summary.Run, "sympy__sympy-23824")

	e := out.Summary.Existing
	require.NotNil(t, e)
	assert.True(t, e.AsReached)
	assert.Equal(t, []string{"sympy/physics/hep/tests/test_gamma_matrices.py"}, e.Scope, "the one test file the coders' change reaches, not sympy's ~590")
	assert.NotEmpty(t, e.Set.Tests)
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## The repository's own tests")
	assert.Contains(t, string(md), "replace")

	// bot vet of a held-out patch, on the same run.
	held := filepath.Join(w.Dir, w.HeldOut[1])
	patchName := strings.TrimSuffix(filepath.Base(held), ".diff")
	tree, err := vet.ReadPatch(held, w.Dir, "")
	require.NoError(t, err)
	opts.Patch = tree
	vetted, err := session.Run(context.Background(), opts)
	require.NoError(t, err)
	v := vetted.Summary.Vet
	require.NotNil(t, v)
	t.Logf("bot vet %s: %s — %s", patchName, v.Conclusion, v.Why)
	assert.Contains(t, []string{vet.Success, vet.Failure, vet.Neutral}, v.Conclusion)
	judged := 0
	for _, f := range append(append([]vet.Finding{}, v.Vetted...), v.Others...) {
		if want, ok := matrix.cellOf(t, patchName, f.Tester); ok {
			assert.Equal(t, want, f.Patch.Passed(), "the held-out patch on %s's test: the vet and the pass matrix disagree (%s)", f.Tester, f.Patch.Outcome)
			judged++
		}
	}
	assert.GreaterOrEqual(t, judged, 6, "the patch was judged on every proposed test")
}

// passMatrix is an instance's pass matrix by the population's names.
type passMatrix struct {
	m       *swebench.Matrix
	coders  map[string]string // population name -> corpus name
	testers map[string]int    // population name -> column
}

func readMatrix(t *testing.T, id string, names map[string]string) passMatrix {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "data", "swe-sympy-matrix", id+".json"))
	require.NoError(t, err)
	m := &swebench.Matrix{}
	require.NoError(t, json.Unmarshal(data, m))
	pm := passMatrix{m: m, coders: names, testers: map[string]int{}}
	for j, col := range m.Tests {
		pm.testers[swepop.AgentName(col.Name)] = j
	}
	return pm
}

// cell is whether the coder (a population name) passes the tester's test in the matrix;
// ok is false for a cell the environment kept from an answer.
func (pm passMatrix) cell(t *testing.T, coder, tester string) (pass, ok bool) {
	t.Helper()
	name, found := pm.coders[coder]
	require.True(t, found, "coder %s is not in the pass matrix", coder)
	return pm.cellOf(t, name, tester)
}

func (pm passMatrix) cellOf(t *testing.T, corpusName, tester string) (pass, ok bool) {
	t.Helper()
	j, found := pm.testers[tester]
	require.True(t, found, "tester %s is not in the pass matrix", tester)
	row := pm.m.Rows[corpusName]
	require.NotEmpty(t, row, "no row for %s", corpusName)
	switch row[j] {
	case swebench.CellPass:
		return true, true
	case swebench.CellFail:
		return false, true
	}
	return false, false
}

// logWriter shows the run's progress lines in the test's log, stamped with the time, so
// a slow CI run shows where its minutes went.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			w.t.Log(line)
		}
	}
	return len(p), nil
}
