package swebench

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
)

// needJudge skips a test that needs the real judge where it cannot run: bubblewrap and
// Debian's /usr/bin/python3 with pytest and mpmath, as the corpus' README says.
func needJudge(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs pytest sessions in the judge's sandbox")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap (bwrap) is not installed: the judge's sandbox runs the sessions")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest, mpmath").Run(); err != nil {
		t.Skipf("/usr/bin/python3 with pytest and mpmath is needed: %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to build the test corpus' bases.git")
	}
}

// corpusDir finds the swe-sympy corpus beside the module root (../shared/data/swe-sympy),
// or skips.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test")
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "data", "swe-sympy")
	if _, err := os.Stat(filepath.Join(path, "instances.jsonl")); err != nil {
		t.Skipf("swe-sympy corpus not beside the module root: %v", err)
	}
	return path
}

// The synthetic project: a package whose add is wrong, its tests, and a root conftest
// that imports it (as sympy's does), so that a tree that does not import fails to load it.
var calcBase = map[string]string{
	"pytest.ini":             "[pytest]\n",
	"conftest.py":            "import calc\n",
	"calc/__init__.py":       "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
	"calc/tests/__init__.py": "",
	"calc/tests/test_calc.py": `import pytest
from calc import add, mul


def test_mul():
    assert mul(2, 3) == 6


@pytest.mark.xfail
def test_known_bug():
    assert mul(2, 2) == 5


@pytest.mark.parametrize("a", [1, 2])
def test_param(a):
    assert mul(a, 1) == a


class TestMul:
    def test_zero(self):
        assert mul(0, 5) == 0
`,
}

const calcFixed = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"

// replaceDiff is a git diff that replaces a file whole (new file when old is "").
func replaceDiff(path, old, new string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n", path, path)
	ol, nl := splitLines([]byte(old)), splitLines([]byte(new))
	if old == "" {
		fmt.Fprintf(&b, "new file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, len(nl))
	} else {
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@\n", path, path, len(ol), len(nl))
	}
	for _, l := range ol {
		b.WriteString("-" + l)
	}
	for _, l := range nl {
		b.WriteString("+" + l)
	}
	return b.String()
}

// appendDiff adds text at the end of a file, with three lines of context.
func appendDiff(path, old, add string) string {
	ol, al := splitLines([]byte(old)), splitLines([]byte(add))
	ctx := ol[len(ol)-3:]
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d,3 +%d,%d @@\n", path, path, path, path, len(ol)-2, len(ol)-2, 3+len(al))
	for _, l := range ctx {
		b.WriteString(" " + l)
	}
	for _, l := range al {
		b.WriteString("+" + l)
	}
	return b.String()
}

// writeCalcCorpus writes a corpus of one synthetic instance with every kind of coder
// and test patch the matrix must handle, and returns its folder.
func writeCalcCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	id := "demo__calc-1"
	// The base, as bases.git's refs/bases/<id> (an orphan commit, packed refs only).
	work := filepath.Join(t.TempDir(), "base")
	for p, s := range calcBase {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(work, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(work, p), []byte(s), 0o644))
	}
	gitDir := filepath.Join(dir, "bases.git")
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir, "--work-tree=" + work}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_INDEX_FILE="+filepath.Join(dir, "index"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	require.NoError(t, exec.Command("git", "init", "-q", "--bare", gitDir).Run())
	git("add", "-A")
	tree := git("write-tree")
	commit := git("commit-tree", tree, "-m", "base")
	git("update-ref", "refs/bases/"+id, commit)
	git("pack-refs", "--all")
	require.NoError(t, os.RemoveAll(filepath.Join(gitDir, "refs")), "the corpus' bases.git has no refs/")
	require.NoError(t, os.Remove(filepath.Join(dir, "index")))

	init := calcBase["calc/__init__.py"]
	tests := calcBase["calc/tests/test_calc.py"]
	line := map[string]any{
		"instance_id": id, "repo": "demo/calc", "base_commit": "0", "version": "1.0", "python": "3.11",
		"gold_patch":      replaceDiff("calc/__init__.py", init, calcFixed),
		"gold_test_patch": appendDiff("calc/tests/test_calc.py", tests, "\n\ndef test_add():\n    assert add(2, 3) == 5\n"),
		"fail_to_pass":    []string{"test_add"},
		"pass_to_pass":    []string{"test_mul", "test_known_bug", "test_param", "test_zero"},
		"test_files":      []string{"calc/tests/test_calc.py"},
		"base_ref":        "refs/bases/" + id, "base_tree": tree,
	}
	data, err := json.Marshal(line)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "instances.jsonl"), append(data, '\n'), 0o644))

	coderDiffs := map[string]string{
		"good-1":     replaceDiff("calc/__init__.py", init, calcFixed),
		"abs-1":      replaceDiff("calc/__init__.py", init, strings.Replace(calcFixed, "a + b", "abs(a) + abs(b)", 1)),
		"hang-1":     replaceDiff("calc/__init__.py", init, strings.Replace(calcFixed, "return a + b", "while True:\n        pass", 1)),
		"broken-1":   replaceDiff("calc/__init__.py", init, strings.Replace(calcFixed, "def add(a, b):", "def add(a, b:", 1)),
		"noapply-1":  replaceDiff("calc/__init__.py", "def nothing():\n    pass\n", calcFixed),
		"mulbreak-1": replaceDiff("calc/__init__.py", init, strings.Replace(calcFixed, "a * b", "a * b + 1", 1)),
		"dup-1":      replaceDiff("calc/__init__.py", init, calcFixed),
		"sleep-1":    replaceDiff("calc/__init__.py", init, strings.Replace(calcFixed, "return a + b", "import time\n    time.sleep(1000)", 1)),
		"exit-1":     replaceDiff("calc/__init__.py", init, strings.Replace(calcFixed, "return a + b", "import os\n    os._exit(3)", 1)),
		"testedit-1": replaceDiff("calc/__init__.py", init, calcFixed) + replaceDiff("calc/tests/test_calc.py", tests, "def test_add():\n    pass\n"),
	}
	coders := map[string]any{}
	for name, d := range coderDiffs {
		c := map[string]any{"source": strings.TrimSuffix(name, "-1"), "sha256": sha256Hex([]byte(d)), "files": []string{"calc/__init__.py"}, "applies_to_base": name != "noapply-1"}
		switch name {
		case "dup-1":
			c["duplicate_of"] = "good-1"
			c["published_label"], c["resolved_only_source"] = "resolved", true
		case "good-1":
			c["published_label"], c["resolved_only_source"] = "resolved", true
		case "abs-1":
			c["published_label"] = "unresolved" // a disagreement the run must report
		}
		coders[name] = c
	}
	testerDiffs := map[string]string{
		"t-neg":     appendDiff("calc/tests/test_calc.py", tests, "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"),
		"t-import":  "diff --git a/calc/tests/test_calc.py b/calc/tests/test_calc.py\n--- a/calc/tests/test_calc.py\n+++ b/calc/tests/test_calc.py\n@@ -1,3 +1,4 @@\n import pytest\n from calc import add, mul\n+from calc import sub\n \n" + strings.TrimPrefix(appendDiff("calc/tests/test_calc.py", tests, "\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"), "diff --git a/calc/tests/test_calc.py b/calc/tests/test_calc.py\n--- a/calc/tests/test_calc.py\n+++ b/calc/tests/test_calc.py\n"),
		"t-empty":   appendDiff("calc/tests/test_calc.py", tests, "\n\ndef helper():\n    def test_nested():\n        pass\n"),
		"t-direct":  replaceDiff("calc/tests/data.py", "", "CASES = [(1, 1, 2)]\n") + appendDiff("calc/tests/test_calc.py", tests, "\n\ndef test_cases():\n    from calc.tests.data import CASES\n    for a, b, c in CASES:\n        assert add(a, b) == c\n"),
		"t-edit":    strings.Replace(replaceDiff("calc/tests/test_calc.py", tests, strings.Replace(tests, "assert mul(2, 3) == 6", "assert mul(2, 3) == 6\n    assert mul(-1, 1) == -1", 1)), "", "", 0),
		"t-dup-neg": appendDiff("calc/tests/test_calc.py", tests, "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"),
	}
	touched := map[string][]string{"t-neg": {"test_add_negative"}, "t-import": {"test_sub"}, "t-empty": {}, "t-direct": {"test_cases"}, "t-edit": {"test_mul"}, "t-dup-neg": {"test_add_negative"}}
	testers := map[string]any{}
	for name, d := range testerDiffs {
		tp := map[string]any{"source": name, "model": "m", "applies_with": "git-apply", "sha256": sha256Hex([]byte(d)), "touched_tests": touched[name], "files": []string{"calc/tests/test_calc.py"}}
		if name == "t-dup-neg" {
			tp["duplicate_of"] = "t-neg"
		}
		testers[name] = tp
	}
	writePatches(t, dir, id, coders, coderDiffs, testers, testerDiffs)
	return dir
}

// cells reads a matrix row by test name.
func cells(m *Matrix, row string) map[string]string {
	out := map[string]string{}
	for k, c := range m.Rows[row] {
		out[m.Tests[k].Name] = c
	}
	return out
}

func coderRow(m *Matrix, name string) CoderRow {
	for _, c := range m.Coders {
		if c.Name == name {
			return c
		}
	}
	return CoderRow{}
}

// One synthetic instance through the real judge: labels as SWE-bench defines them
// (xfail and parametrized and class tests included), a hanging coder stopped by the
// per-test limit, a coder that does not import, a patch that does not apply, a test
// patch that does not import, one that edits a non-test file, one that touches no
// test; then the cache answers a second run.
func TestMatrixOfASyntheticInstance(t *testing.T) {
	needJudge(t)
	dir := writeCalcCorpus(t)
	c, err := LoadCorpus(dir)
	require.NoError(t, err)
	r, err := NewRunner(c, Options{WorkDir: t.TempDir(), TestTimeout: 3 * time.Second, Logger: testLogger(t)})
	require.NoError(t, err)
	out := t.TempDir()
	sum, err := r.All(context.Background(), out, false)
	require.NoError(t, err)
	require.Len(t, sum.Instances, 1)
	require.Empty(t, sum.Instances[0].Error)
	m := Cached(out, "demo__calc-1", mustInputs(t, r, c.Instances[0]))
	require.NotNil(t, m, "the matrix is written and keyed by its inputs")
	t.Logf("%d sessions, %.1f s, notes %q", m.Sessions, m.Env.Seconds, m.Notes)

	lc := m.LabelCheck
	assert.True(t, lc.F2PFailOnBase)
	assert.True(t, lc.GoldPasses, "xfail, parametrized and class tests pass on the gold patch: %v", lc.GoldFailures)
	assert.Empty(t, lc.P2PFailOnBase)
	assert.Equal(t, "absent", lc.Goldcheck)
	assert.Equal(t, "bubblewrap", m.Env.Isolation)

	names := []string{}
	for _, tc := range m.Tests {
		names = append(names, tc.Name)
	}
	assert.Equal(t, []string{"t-direct", "t-dup-neg", "t-edit", "t-empty", "t-import", "t-neg"}, names)
	byName := map[string]TestColumn{}
	for _, tc := range m.Tests {
		byName[tc.Name] = tc
	}
	assert.False(t, byName["t-empty"].Runnable)
	assert.Contains(t, byName["t-empty"].Reason, "touched_tests is empty")
	assert.True(t, byName["t-direct"].Runnable)
	assert.Contains(t, byName["t-direct"].Reason, "session of its own")
	assert.Equal(t, "t-neg", byName["t-dup-neg"].DuplicateOf)

	want := map[string]map[string]string{
		//            dup-neg  direct  edit   empty  import  neg
		"base":       {"t-dup-neg": "fail", "t-direct": "fail", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"gold":       {"t-dup-neg": "pass", "t-direct": "pass", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "pass"},
		"good-1":     {"t-dup-neg": "pass", "t-direct": "pass", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "pass"},
		"dup-1":      {"t-dup-neg": "pass", "t-direct": "pass", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "pass"},
		"abs-1":      {"t-dup-neg": "fail", "t-direct": "pass", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"hang-1":     {"t-dup-neg": "fail", "t-direct": "fail", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"broken-1":   {"t-dup-neg": "fail", "t-direct": "fail", "t-edit": "fail", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"noapply-1":  {"t-dup-neg": "fail", "t-direct": "fail", "t-edit": "fail", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"sleep-1":    {"t-dup-neg": "fail", "t-direct": "fail", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"exit-1":     {"t-dup-neg": "fail", "t-direct": "fail", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "fail"},
		"mulbreak-1": {"t-dup-neg": "pass", "t-direct": "pass", "t-edit": "fail", "t-empty": "env", "t-import": "fail", "t-neg": "pass"},
		"testedit-1": {"t-dup-neg": "pass", "t-direct": "pass", "t-edit": "pass", "t-empty": "env", "t-import": "fail", "t-neg": "pass"},
	}
	for row, w := range want {
		assert.Equal(t, w, cells(m, row), row)
	}
	resolved := map[string]bool{}
	for _, cd := range m.Coders {
		resolved[cd.Name] = cd.Resolved
	}
	assert.Equal(t, map[string]bool{"good-1": true, "dup-1": true, "abs-1": true, "testedit-1": true,
		"hang-1": false, "broken-1": false, "noapply-1": false, "mulbreak-1": false, "exit-1": false, "sleep-1": false}, resolved)
	assert.Equal(t, []string{"test_add"}, coderRow(m, "exit-1").LabelFailures, "the session that died is split until the test that ends it is alone")
	assert.Equal(t, []string{"test_add"}, coderRow(m, "hang-1").LabelFailures)
	assert.Equal(t, []string{"test_mul", "test_param", "test_zero"}, coderRow(m, "mulbreak-1").LabelFailures, "an xpass of the xfail test still passes")
	assert.False(t, coderRow(m, "noapply-1").Applies)
	assert.Contains(t, coderRow(m, "noapply-1").ApplyError, "does not apply")
	assert.Equal(t, coderRow(m, "good-1").PatchSHA256, coderRow(m, "dup-1").PatchSHA256)
	assert.Equal(t, coderRow(m, "good-1").PatchSHA256, coderRow(m, "testedit-1").PatchSHA256[:0]+coderRow(m, "good-1").PatchSHA256)
	assert.Equal(t, 3, lc.Published)
	assert.Equal(t, 2, lc.PublishedAgree)
	assert.Equal(t, []string{"abs-1: published unresolved, here resolved"}, lc.PublishedDisagr)

	// Env cells: the untouched test patch only, on every tree that ran.
	for _, e := range m.EnvCells {
		assert.Equal(t, "t-empty", e.Test, "%+v", e)
	}
	assert.Empty(t, m.LabelEnv)
	joined := strings.Join(m.Notes, "\n")
	// A loop is stopped by whichever limit it meets first: its CPU time on a quiet machine,
	// the wall time when a busy one gives it under a quarter of a core.
	assert.Regexp(t, `hang-1: test_add failed at the per-test time limit: calc/tests/test_calc\.py::test_add fail: dixit_plugin\.DixitTestTimeout: the test (took more than 3 s of CPU|ran longer than 12 s)`, joined)
	assert.Contains(t, joined, "sleep-1: test_add failed at the per-test time limit: calc/tests/test_calc.py::test_add fail: dixit_plugin.DixitTestTimeout: the test ran longer than 12 s")
	assert.Contains(t, joined, "broken-1: pytest could not load the tree's conftest")
	assert.Contains(t, joined, "exit-1: test_add fails without a report (the base and the gold patch answer it): the session ended fail")

	// A second run reads the cache.
	t0 := time.Now()
	sum, err = r.All(context.Background(), out, false)
	require.NoError(t, err)
	assert.True(t, sum.Instances[0].Cached)
	assert.Less(t, time.Since(t0), 5*time.Second)
}

// testLogger logs the sessions and units with -v.
func testLogger(t *testing.T) *slog.Logger {
	if !testing.Verbose() {
		return nil
	}
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func mustInputs(t *testing.T, r *Runner, inst *Instance) string {
	h, err := r.InputsHash(inst)
	require.NoError(t, err)
	return h
}

// A real instance of the corpus, end to end with a few of its coders: the controls
// agree with the corpus' gold check, and the labels with the published ones.
func TestMatrixOfARealInstance(t *testing.T) {
	needJudge(t)
	dir := corpusDir(t)
	c, err := LoadCorpus(dir, "sympy__sympy-23950")
	require.NoError(t, err)
	keep := []string{"agentless-gpt4o-0", "agentless-gpt4o-1", "moatless-resolved-1", "moatless-resolved-2", "moatless-resolved-3"}
	r, err := NewRunner(c, Options{WorkDir: t.TempDir(), Coders: keep})
	require.NoError(t, err)
	m, err := r.Instance(context.Background(), c.Instances[0])
	require.NoError(t, err)
	t.Logf("%d sessions, %.1f s, notes %q", m.Sessions, m.Env.Seconds, m.Notes)
	lc := m.LabelCheck
	assert.True(t, lc.F2PFailOnBase)
	assert.True(t, lc.GoldPasses)
	assert.Equal(t, "agrees", lc.Goldcheck)
	assert.Len(t, m.Tests, 14)
	assert.Empty(t, m.EnvCells)
	assert.Empty(t, m.LabelEnv)
	var got []string
	for _, cd := range m.Coders {
		got = append(got, cd.Name)
		assert.True(t, cd.Applies, cd.Name)
		if cd.ResolvedOnlySource {
			assert.True(t, cd.Resolved, "%s: published resolved; fails %v", cd.Name, cd.LabelFailures)
		}
	}
	assert.Equal(t, keep, got)
	assert.Equal(t, []string{"test_as_set"}, coderRow(m, "agentless-gpt4o-0").LabelFailures)
	assert.True(t, coderRow(m, "agentless-gpt4o-1").Resolved)
	assert.Equal(t, "moatless-resolved-1", coderRow(m, "moatless-resolved-2").DuplicateOf)
	assert.Equal(t, m.Rows["moatless-resolved-1"], m.Rows["moatless-resolved-2"])
	assert.Equal(t, m.Rows["gold"], m.Rows["agentless-gpt4o-1"])
	assert.True(t, slices.Contains(m.Rows["base"], CellPass) && slices.Contains(m.Rows["base"], CellFail))
	_ = ci.Pass
}
