package ci

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// suiteTree reads a directory of testdata/suite as a tree.
func suiteTree(t *testing.T, name string) mapTree {
	return testdataTree(t, "../suite/"+name)
}

const brokenSub = "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a + b }\n"

func TestSuiteGoCatchesABrokenExistingTestEvenWhenTheCoderEditsIt(t *testing.T) {
	l := newGoJudge(t, 30*time.Second, nil)
	ctx := context.Background()
	base := suiteTree(t, "go")

	rs, err := l.RunSuite(ctx, 2, []SuiteJob{{Coder: "base", Tree: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{
		"example.com/suite/calc.TestAdd":   Pass,
		"example.com/suite/calc.TestSub":   Pass,
		"example.com/suite/calc.TestFlaky": Fail,
		"example.com/suite/show.TestSum":   Pass,
	}, rs[0].Tests)
	set := NewRegressionSet(rs[0])
	assert.Equal(t, []string{"example.com/suite/calc.TestAdd", "example.com/suite/calc.TestSub", "example.com/suite/show.TestSum"}, set.Tests)
	assert.Equal(t, []string{"example.com/suite/calc.TestFlaky"}, set.Flaky, "passed one run of two")

	broken := base.With("calc/calc.go", brokenSub)
	// The coder also rewrote the test to expect its wrong answer: the base's test runs.
	cheat := broken.With("calc/calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {}\n")
	feature := base.With("calc/mul.go", "package calc\n\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n")
	noBuild := base.With("calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + }\n")
	rs, err = l.RunSuite(ctx, 1, []SuiteJob{
		{Coder: "broken", Tree: broken, Tests: base},
		{Coder: "cheat", Tree: cheat, Tests: base},
		{Coder: "feature", Tree: feature, Tests: base},
		{Coder: "no-build", Tree: noBuild, Tests: base},
		{Coder: "broken, show only", Tree: broken, Tests: base, Only: []string{"show"}},
		{Coder: "no-build, show only", Tree: noBuild, Tests: base, Only: []string{"show"}},
	})
	require.NoError(t, err)
	sub := []Regression{{Test: "example.com/suite/calc.TestSub", Reason: "fails: calc_test.go:13: Sub(5, 3) = 8, want 2"}}
	assert.Equal(t, sub, Regressions(set, rs[0]), rs[0].Output)
	assert.Equal(t, sub, Regressions(set, rs[1]), "the coder's edit of the test is not what ran")
	assert.Empty(t, Regressions(set, rs[2]), rs[2].Output)

	assert.Equal(t, BuildFailed, rs[3].Outcome)
	assert.Contains(t, rs[3].Output, "calc.go:3")
	regs := Regressions(set, rs[3])
	require.Len(t, regs, 3)
	assert.Equal(t, "the tree's tests did not build (calc/calc.go:3:37: syntax error: unexpected }, expected expression)", regs[0].Reason)

	assert.Equal(t, []string{"example.com/suite/show"}, rs[4].Scope)
	assert.Equal(t, map[string]Outcome{"example.com/suite/show.TestSum": Pass}, rs[4].Tests)
	assert.Empty(t, Regressions(set, rs[4]), "calc's tests were not in the restricted suite")
	assert.Equal(t, BuildFailed, rs[5].Outcome)
	require.Len(t, Regressions(set, rs[5]), 1, "a restricted suite that does not build fails its own tests only")
	assert.Equal(t, "example.com/suite/show.TestSum", Regressions(set, rs[5])[0].Test)
}

func TestSuiteAffectedGoPackages(t *testing.T) {
	l := newGoJudge(t, 30*time.Second, nil)
	base := suiteTree(t, "go").With("calc/testdata/golden.txt", "3\n", "cmd/tool/main.go", "package main\n\nfunc main() {}\n",
		"report/report.go", "package report\n",
		"report/report_test.go", "package report\n\nimport (\n\t\"testing\"\n\n\t\"example.com/suite/calc\"\n)\n\nfunc TestTotal(t *testing.T) { _ = calc.Add }\n")
	// The coder's copy of report's test no longer imports calc; the base's, which runs, does.
	coder := base.With("report/report_test.go", "package report\n")
	for _, tc := range []struct {
		name    string
		changed []string
		want    []string
	}{
		{"a package and its importers, by the tests that run", []string{"calc/calc.go"}, []string{"calc", "report", "show"}},
		{"a package nobody imports", []string{"show/show.go"}, []string{"show"}},
		{"test data counts for its package", []string{"calc/testdata/golden.txt"}, []string{"calc", "report", "show"}},
		{"a file outside every package", []string{"README.md"}, []string{}},
		{"the module's requirements touch everything", []string{"show/show.go", "go.mod"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.Affected(context.Background(), SuiteJob{Tree: coder, Tests: base}, tc.changed)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSuitePreparedFailureIsTheEnvironmentNotTheTests(t *testing.T) {
	c, _ := languages.Preset("go")
	c.Prepare = "echo 'cannot reach the module proxy' >&2; exit 1"
	l := depsJudge(t, c, "")
	rs, err := l.RunSuite(context.Background(), 1, []SuiteJob{{Coder: "base", Tree: suiteTree(t, "go")}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, rs[0].Outcome)
	assert.Contains(t, rs[0].Output, "cannot reach the module proxy")
	assert.Empty(t, rs[0].Tests, "no test ran, so none failed")
	set := RegressionSet{Tests: []string{"example.com/suite/calc.TestAdd"}, Runs: 1}
	assert.Equal(t, "the tree's dependencies could not be installed (cannot reach the module proxy)", Regressions(set, rs[0])[0].Reason)
}

func TestSuitePythonSrcLayoutTakesTheBasesTestsAndSettings(t *testing.T) {
	pythonWithPytest(t)
	c, _ := languages.Preset("python")
	l := depsJudge(t, c, "")
	ctx := context.Background()
	base := suiteTree(t, "python")
	rs, err := l.RunSuite(ctx, 1, []SuiteJob{{Coder: "base", Tree: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{
		"tests/test_calc.py::test_add":            Pass,
		"tests/test_calc.py::test_sub":            Pass,
		"tests/test_calc.py::TestPair::test_both": Pass,
	}, rs[0].Tests, "test_outside.py lies outside the project's testpaths")
	set := NewRegressionSet(rs[0])

	// The coder breaks sub, weakens its test and deselects it in settings of its own.
	cheat := base.With("src/calc/__init__.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n",
		"tests/test_calc.py", "def test_add():\n    pass\n",
		"pytest.ini", "[pytest]\naddopts = -k 'not sub'\n")
	rs, err = l.RunSuite(ctx, 1, []SuiteJob{{Coder: "cheat", Tree: cheat, Tests: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, []Regression{
		{Test: "tests/test_calc.py::TestPair::test_both", Reason: "fails: assert (2, 2) == (2, 0)"},
		{Test: "tests/test_calc.py::test_sub", Reason: "fails: AssertionError: sub(5, 3) should be 2"},
	}, Regressions(set, rs[0]))
}

func TestSuiteNodeNamesTestsByFile(t *testing.T) {
	if exec.Command("node", "--version").Run() != nil {
		t.Skip("node is not installed here")
	}
	c, _ := languages.Preset("node")
	l := depsJudge(t, c, "")
	ctx := context.Background()
	base := suiteTree(t, "node")
	rs, err := l.RunSuite(ctx, 1, []SuiteJob{{Coder: "base", Tree: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{
		"test/calc.test.js::adds":      Pass,
		"test/calc.test.js::sub":       Pass,
		"test/calc.test.js::subtracts": Pass,
	}, rs[0].Tests)
	set := NewRegressionSet(rs[0])

	broken := base.With("calc.js", "exports.add = (a, b) => a + b;\nexports.sub = (a, b) => a + b;\n",
		"test/calc.test.js", "require('node:test')('adds', () => {});\n")
	rs, err = l.RunSuite(ctx, 1, []SuiteJob{{Coder: "broken", Tree: broken, Tests: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, []Regression{
		{Test: "test/calc.test.js::sub", Reason: "fails: 1 subtest failed"},
		{Test: "test/calc.test.js::subtracts", Reason: "fails: Expected values to be strictly equal: 8 !== 2"},
	}, Regressions(set, rs[0]))
	assert.Contains(t, rs[0].Output, "subtracts", "the runner's readable output says which")
}

func TestSuiteRustNamesTestsByTarget(t *testing.T) {
	l := ecosystemJudge(t, "rust", []string{"cargo", "--version"})
	ctx := context.Background()
	base := suiteTree(t, "rust")
	rs, err := l.RunSuite(ctx, 1, []SuiteJob{{Coder: "base", Tree: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{
		"src/lib.rs::tests::doubles": Pass,
		"tests/it.rs::doubles_two":   Pass,
	}, rs[0].Tests, "libtest leaves ignored tests out of its report")
	set := NewRegressionSet(rs[0])

	broken := base.With("src/lib.rs", "pub fn double(x: i64) -> i64 {\n    x + 1\n}\n",
		"tests/it.rs", "#[test]\nfn doubles_two() {}\n")
	rs, err = l.RunSuite(ctx, 1, []SuiteJob{{Coder: "broken", Tree: broken, Tests: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, []Regression{
		{Test: "src/lib.rs::tests::doubles", Reason: "did not run: the tree no longer has it, or its file or package failed before it ran"},
		{Test: "tests/it.rs::doubles_two", Reason: "fails: assertion `left == right` failed: double(2)"},
	}, Regressions(set, rs[0]))
}

func TestSuiteWithoutItsRunnerIsTheEnvironmentNotTheTests(t *testing.T) {
	if exec.Command("python3", "-c", "import pytest").Run() == nil {
		t.Skip("the first python3 on PATH has pytest here: TestAMissingPytestSaysWhichPythonAndWhatToInstall covers the check")
	}
	c, _ := languages.Preset("python")
	l := depsJudge(t, c, "")
	tree := suiteTree(t, "python")
	delete(tree, "pyproject.toml") // no manifest, no virtual environment to make first
	rs, err := l.RunSuite(context.Background(), 1, []SuiteJob{{Coder: "base", Tree: tree}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, rs[0].Outcome)
	assert.Contains(t, rs[0].Output, "pytest is not importable by the python3 the judge found")
	assert.Empty(t, rs[0].Tests)
}

func TestSuiteThatHangsTimesOutAsAWhole(t *testing.T) {
	if exec.Command("node", "--version").Run() != nil {
		t.Skip("node is not installed here")
	}
	c, _ := languages.Preset("node")
	c.Timeout = 300 * time.Millisecond // the suite's one file gets ten times that
	l := depsJudge(t, c, "")
	tree := mapTree{"test/hang.test.js": "require('node:test')('hangs', () => new Promise(() => setInterval(() => {}, 1000)));\n"}
	rs, err := l.RunSuite(context.Background(), 2, []SuiteJob{{Coder: "base", Tree: tree}})
	require.NoError(t, err)
	assert.Equal(t, Timeout, rs[0].Outcome)
	assert.Contains(t, rs[0].Output, "suite run 1 of 2: timed out after 3s")
	assert.Empty(t, NewRegressionSet(rs[0]).Tests, "a base whose suite never finishes guards nothing")
}

func TestSuiteTypeScriptRunsTheBasesSpecsWithItsLoader(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here")
	}
	requireRegistry(t, "https://registry.npmjs.org/tsx")
	l := ecosystemJudge(t, "typescript", []string{"node", "--version"})
	spec := "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { double } from './calc.ts';\n\n" +
		"test('doubles', () => { const n: number = double(21); assert.strictEqual(n, 42); });\n"
	base := testdataTree(t, "ts-tsx").With("calc.spec.ts", spec)
	broken := base.With("calc.ts", "export function double(n: number): number {\n  return n + 2;\n}\n",
		"calc.spec.ts", "import { test } from 'node:test';\ntest('doubles', () => {});\n")
	rs, err := l.RunSuite(context.Background(), 1, []SuiteJob{{Coder: "base", Tree: base}, {Coder: "broken", Tree: broken, Tests: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{"calc.spec.ts::doubles": Pass}, rs[0].Tests)
	assert.Equal(t, []Regression{{Test: "calc.spec.ts::doubles", Reason: "fails: Expected values to be strictly equal: 23 !== 42"}},
		Regressions(NewRegressionSet(rs[0]), rs[1]), rs[1].Output)
}

func TestSuiteJavaNamesTestsByClassAndMethod(t *testing.T) {
	l := ecosystemJudge(t, "java", []string{"javac", "-version"},
		[]string{"test", "-f", "/usr/share/java/junit-platform-console-standalone.jar"})
	base := suiteTree(t, "java")
	broken := base.With("src/main/java/calc/Calc.java", "package calc;\n\npublic final class Calc {\n    public static int twice(int x) { return 2 * x; }\n\n    public static int half(int x) { return x; }\n}\n",
		"src/test/java/calc/CalcTest.java", "package calc;\n\nclass CalcTest {}\n")
	rs, err := l.RunSuite(context.Background(), 1, []SuiteJob{{Coder: "base", Tree: base}, {Coder: "broken", Tree: broken, Tests: base}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{"calc.CalcTest#twice()": Pass, "calc.CalcTest#half()": Pass}, rs[0].Tests)
	assert.Equal(t, []Regression{{Test: "calc.CalcTest#half()", Reason: "fails: half of 42 ==> expected: <21> but was: <42>"}},
		Regressions(NewRegressionSet(rs[0]), rs[1]), rs[1].Output)
}

// A pytest session runs every selected file in one process: the process may take the CPU
// time its suite unit is allowed, not one verdict's. Two tests of 0.7 s of CPU each pass
// under a per-test CPU limit of 1 s.
func TestSuiteProcessHasItsUnitsCPUTime(t *testing.T) {
	pythonWithPytest(t)
	c, _ := languages.Preset("python")
	c.Timeout = 3 * time.Second // a unit: 30 s
	citest.KeepUmask(t)
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), CacheDir: t.TempDir(), Parallel: 1, Sandbox: SandboxAuto,
		Logger: quietLogger(), Limits: sandbox.Limits{CPU: time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	busy := "import time\n\n\ndef burn():\n    end = time.process_time() + 0.7\n    while time.process_time() < end:\n        pass\n\n\n" +
		"def test_one():\n    burn()\n\n\ndef test_two():\n    burn()\n"
	tree := suiteTree(t, "python").With("tests/test_busy.py", busy)
	rs, err := l.RunSuite(context.Background(), 1, []SuiteJob{{Coder: "base", Tree: tree, Only: []string{"tests/test_busy.py"}}})
	require.NoError(t, err)
	require.Equal(t, Pass, rs[0].Outcome, rs[0].Output)
	assert.Equal(t, map[string]Outcome{"tests/test_busy.py::test_one": Pass, "tests/test_busy.py::test_two": Pass}, rs[0].Tests)
}
