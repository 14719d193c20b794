package ci

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// The repository at the base: calc, and an existing test file of three tests. The coder
// broke sub and neg on its way to the spec (they now return 0), so the existing tests of
// those fail on its tree: a run of the whole file could not pass there.
var (
	diffBase = map[string]string{
		"calc/__init__.py":   "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n",
		"tests/__init__.py":  "",
		"tests/test_calc.py": diffTests,
	}
	diffTests = `from calc import add, neg, sub


def test_add():
    assert add(1, 2) == 3


def test_sub():
    assert sub(5, 2) == 3


def test_neg():
    assert neg(4) == -4
`
	diffCoder = mapTree{
		"calc/__init__.py":   "import os\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return 0\n\n\ndef neg(a):\n    return 0\n\n\ndef quit():\n    os._exit(0)\n",
		"tests/__init__.py":  "",
		"tests/test_calc.py": "def test_coders_own():\n    assert False\n",
	}
)

const diffHeader = "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n"

// diffAtEnd is a diff that adds body after the file's last test.
func diffAtEnd(body string) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	var b strings.Builder
	b.WriteString(diffHeader)
	b.WriteString("@@ -11,3 +11,")
	b.WriteString(strconv.Itoa(3 + 2 + len(lines)))
	b.WriteString(" @@\n \n def test_neg():\n     assert neg(4) == -4\n+\n+\n")
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// reportsRun is a complete report of tests given as {classname, name, outcome}.
func reportsRun(tests [][3]string) reports.Run {
	r := reports.Run{Complete: true}
	for _, t := range tests {
		r.Tests = append(r.Tests, reports.Result{Class: t[0], Name: t[1], Outcome: t[2]})
	}
	return r
}

// diffTest is the test a tester's diff proposes on diffBase.
func diffTest(t *testing.T, id, diff string) Test {
	t.Helper()
	c, _ := languages.Preset("python")
	base := fstest.MapFS{}
	for p, s := range diffBase {
		base[p] = &fstest.MapFile{Data: []byte(s)}
	}
	d, err := ApplyTestDiff(c, []byte(diff), base)
	require.NoError(t, err)
	return Test{ID: id, Path: d.Path, Content: d.Content, Select: d.Select}
}

// pythonJudge is the Python preset's judge, with a python3 that has pytest first on PATH.
func pythonJudge(t *testing.T) *Local {
	t.Helper()
	pytestFirst(t)
	return presetJudge(t, "python", "python3", "-c", "import pytest")
}

// A proposal made as a diff of an existing test file runs exactly the tests it adds or
// changes, on the coder's tree, each proven by pytest's report: the file's other tests,
// which fail on this coder, do not run; one failing test of two fails the proposal and
// is named; the judge's own checks still run in the same process.
func TestDiffProposalsRunOnlyTheirTests(t *testing.T) {
	l := pythonJudge(t)
	added := diffTest(t, "added", diffAtEnd("def test_add_more():\n    assert add(2, 2) == 4\n"))
	require.Equal(t, []string{"tests/test_calc.py::test_add_more"}, added.Select)
	changed := diffTest(t, "changed", diffHeader+"@@ -8,2 +8,2 @@\n def test_sub():\n-    assert sub(5, 2) == 3\n+    assert sub(5, 5) == 0\n")
	require.Equal(t, []string{"tests/test_calc.py::test_sub"}, changed.Select)
	changedFails := diffTest(t, "changedfails", diffHeader+"@@ -12,2 +12,2 @@\n def test_neg():\n-    assert neg(4) == -4\n+    assert neg(-4) == 4\n")
	two := diffTest(t, "two", diffAtEnd("def test_add_zero():\n    assert add(0, 7) == 7\n\n\ndef test_sub_more():\n    assert sub(9, 4) == 5\n"))
	require.Equal(t, []string{"tests/test_calc.py::test_add_zero", "tests/test_calc.py::test_sub_more"}, two.Select)
	method := diffTest(t, "method", diffAtEnd("class TestMore:\n    def test_add_big(self):\n        assert add(10**20, 1) == 10**20 + 1\n"))
	require.Equal(t, []string{"tests/test_calc.py::TestMore::test_add_big"}, method.Select)
	quits := diffTest(t, "quits", diffAtEnd("def test_quits():\n    from calc import quit\n    quit()\n    assert False\n"))
	whole := Test{ID: "whole", Path: added.Path, Content: added.Content} // the same file, run whole

	jobs := []Job{}
	for _, test := range []Test{added, changed, changedFails, two, method, quits, whole} {
		jobs = append(jobs, Job{Coder: "c", Tree: diffCoder, Test: test})
	}
	vs, err := l.Run(context.Background(), 2, jobs)
	require.NoError(t, err)
	require.Len(t, vs, len(jobs))

	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 2, vs[0].Runs)
	assert.Contains(t, vs[0].Output, "ran only the tests the proposal's diff adds or changes, each reported passed in every run: tests/test_calc.py::test_add_more")

	assert.Equal(t, Pass, vs[1].Outcome, "a changed test runs: %s", vs[1].Output)
	assert.Contains(t, vs[1].Output, "tests/test_calc.py::test_sub")

	assert.Equal(t, Fail, vs[2].Outcome)
	assert.Contains(t, vs[2].Output, "the report says tests/test_calc.py::test_neg failed\n")

	assert.Equal(t, Fail, vs[3].Outcome)
	assert.Contains(t, vs[3].Output, "the report says tests/test_calc.py::test_sub_more failed "+
		"(tests/test_calc.py::test_add_zero passed, tests/test_calc.py::test_sub_more failed)")
	assert.Equal(t, 1, vs[3].Runs, "the first failing run stops the reruns")

	assert.Equal(t, Pass, vs[4].Outcome, "a method of a Test class: %s", vs[4].Output)
	assert.Contains(t, vs[4].Output, "tests/test_calc.py::TestMore::test_add_big")

	assert.NotEqual(t, Pass, vs[5].Outcome, "a test whose code under test ends the process proves nothing: %s", vs[5].Output)

	assert.Equal(t, Fail, vs[6].Outcome, "the whole file fails on this coder: the existing tests of sub and neg")
	assert.Contains(t, vs[6].Output, "test_sub")
}

// A diff proposal's tests must each be reported passed: a report that names the file's
// other tests, or only some of the selected ones, proves nothing.
func TestDiffProposalEvidenceNamesEachSelectedTest(t *testing.T) {
	e := expectation{selected: selectedTests([]string{"tests/test_calc.py::test_a", "tests/test_calc.py::TestK::test_b"})}
	run := func(tests ...[3]string) string {
		r := reportsRun(tests)
		return e.problem(r, 1)
	}
	assert.Empty(t, run([3]string{"tests.test_calc", "test_a", "pass"}, [3]string{"tests.test_calc.TestK", "test_b", "pass"}))
	assert.Empty(t, run([3]string{"test_calc", "test_a[1]", "pass"}, [3]string{"tests.test_calc.TestK", "test_b", "pass"}), "a parametrized case, a shorter classname")
	assert.Equal(t, "the expected test tests/test_calc.py::TestK::test_b did not run (tests/test_calc.py::test_a passed, tests/test_calc.py::TestK::test_b did not run)",
		run([3]string{"tests.test_calc", "test_a", "pass"}, [3]string{"tests.test_calc", "test_b", "pass"}), "test_b at module level is another test")
	assert.Equal(t, "the expected test tests/test_calc.py::test_a did not run (tests/test_calc.py::test_a did not run, tests/test_calc.py::TestK::test_b passed)",
		run([3]string{"tests.test_other", "test_a", "pass"}, [3]string{"tests.test_calc.TestK", "test_b", "pass"}), "test_a of another module")
}
