package tripwire

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

const goProposal = `package calc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAdd(t *testing.T) {
	assert.Equal(t, 5, Add(2, 3))
}
`

// TestGoWiresComeOutAsTheyMust runs an armed Go file under the real go test and reads
// every test's outcome: the proposal's test passes, each wire has the outcome it must,
// and Check finds nothing wrong. The same run with testing's failure turned off (what
// the in-memory patch does) would flip the failing wires, which Check names.
func TestGoWiresComeOutAsTheyMust(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	armed := Arm("calc_test.go", []byte(goProposal), rng(1), nil)
	require.Len(t, armed.Wires, 6, "two before, one through testify, a twin of TestAdd, two after")
	assert.Equal(t, "github.com/stretchr/testify/assert", armed.Wires[2].Via)
	assert.Equal(t, "TestAdd", armed.Wires[3].Twin)

	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.sum"))
	require.NoError(t, err)
	write(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n\nrequire github.com/stretchr/testify "+testifyVersion(t)+"\n")
	write(t, dir, "go.sum", string(sum))
	write(t, dir, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	write(t, dir, "calc_test.go", string(armed.Content))
	outcomes, out := goTestOutcomes(t, dir, "1")
	require.Equal(t, "pass", outcomes["TestAdd"], "the proposal's own test; go test said:\n%s", out)
	for _, w := range armed.Wires {
		assert.Equal(t, w.Want, outcomes[w.Name], "wire %s (via %q)", w.Name, w.Via)
	}
	assert.Empty(t, Check(armed.Wires, outcomes, true, true))

	// In a later run the twin returns at once, and is not checked.
	later, out := goTestOutcomes(t, dir, "2")
	require.Equal(t, "pass", later[armed.Wires[3].Name], "go test said:\n%s", out)
	assert.Empty(t, Check(armed.Wires, later, true, false))
	assert.Contains(t, Check(armed.Wires, later, true, true), "a copy of TestAdd made by the judge")

	forged := map[string]string{"TestAdd": "pass"}
	for _, w := range armed.Wires {
		forged[w.Name] = "pass"
	}
	assert.Contains(t, Check(armed.Wires, forged, true, true), "must fail")
}

// goTestOutcomes runs go test in dir as run number run and reads each test's outcome.
func goTestOutcomes(t *testing.T, dir, run string) (map[string]string, []byte) {
	t.Helper()
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", RunEnv+"="+run)
	out, _ := cmd.Output() // failing wires make go test exit 1
	outcomes := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var ev struct{ Action, Test string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Test != "" && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip") {
			outcomes[ev.Test] = ev.Action
		}
	}
	return outcomes, out
}

const pyProposal = `# -*- coding: utf-8 -*-
"""Tests of calc."""
from __future__ import annotations

import pytest
from sympy.testing.pytest import raises

from calc import add


def test_add():
    assert add(2, 3) == 5
`

// TestPythonWiresComeOutAsTheyMust runs an armed pytest module for real: the leading
// comment, docstring and __future__ import stay first, the proposal's test passes and
// every wire has its outcome, the one through the imported raises helper included.
func TestPythonWiresComeOutAsTheyMust(t *testing.T) {
	python := "/usr/bin/python3"
	if exec.Command(python, "-c", "import pytest").Run() != nil {
		t.Skip("Debian's python3 with pytest is not installed")
	}
	armed := Arm("tests/test_calc.py", []byte(pyProposal), rng(2), nil)
	require.Len(t, armed.Wires, 7, "two before, pytest.raises, raises, a twin of test_add, two after")
	assert.Equal(t, "test_add", armed.Wires[4].Twin)
	content := string(armed.Content)
	assert.True(t, strings.HasPrefix(content, "# -*- coding: utf-8 -*-\n\"\"\"Tests of calc.\"\"\"\nfrom __future__ import annotations\n"), content)

	dir := t.TempDir()
	write(t, dir, "calc.py", "def add(a, b):\n    return a + b\n")
	// The helper stands in for sympy's, which raises when nothing is raised.
	write(t, dir, "sympy/__init__.py", "")
	write(t, dir, "sympy/testing/__init__.py", "")
	write(t, dir, "sympy/testing/pytest.py", "def raises(exc, fn):\n    try:\n        fn()\n    except exc:\n        return\n    raise AssertionError('DID NOT RAISE')\n")
	write(t, dir, "test_calc.py", content)
	report := filepath.Join(t.TempDir(), "report.xml")
	cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml="+report, "test_calc.py")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	outcomes := junitOutcomes(t, report)
	require.Equal(t, "pass", outcomes["test_add"], "pytest said:\n%s", out)
	for _, w := range armed.Wires {
		assert.Equal(t, w.Want, outcomes[w.Name], "wire %s (via %q)", w.Name, w.Via)
	}
	assert.Empty(t, Check(armed.Wires, outcomes, true, true))
}

func TestCheck(t *testing.T) {
	wires := []Wire{{Name: "a", Want: MustPass}, {Name: "b", Want: MustFail, Via: "lib"}, {Name: "c", Want: MustFail, Twin: "t"}}
	cases := []struct {
		name     string
		outcomes map[string]string
		passed   bool
		want     string
	}{
		{"all as they must", map[string]string{"a": "pass", "b": "fail", "c": "fail"}, true, ""},
		{"a failing wire passed", map[string]string{"a": "pass", "b": "pass"}, true, "must fail through lib (b) was reported as pass"},
		{"a passing wire failed", map[string]string{"a": "fail", "b": "fail"}, true, "must pass (a) was reported as fail"},
		{"a wire skipped", map[string]string{"a": "skip", "b": "fail"}, true, "was skipped"},
		{"a wire missing while the test passed", map[string]string{"a": "pass"}, true, "(b) never reported"},
		{"a wire missing while the test failed", map[string]string{"a": "pass"}, false, ""},
		{"a twin passed", map[string]string{"a": "pass", "b": "fail", "t": "pass", "c": "pass"}, true, "a copy of t made by the judge (c)"},
		{"a twin and its original skipped", map[string]string{"a": "pass", "b": "fail", "t[1]": "skip", "c": "skip"}, false, ""},
		{"a twin skipped alone", map[string]string{"a": "pass", "b": "fail", "t": "pass", "c": "skip"}, true, "(c) was skipped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Check(wires, c.outcomes, c.passed, true)
			if c.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, c.want)
			}
		})
	}
}

// TestArmLeavesWhatItCannotArm: a language without wires, a Go file that does not
// parse and a binary file come back unchanged and unarmed.
func TestArmLeavesWhatItCannotArm(t *testing.T) {
	for _, c := range []struct{ rel, content string }{
		{"calc.test.js", "test('x', () => {})\n"},
		{"calc_test.go", "package calc\nfunc {\n"},
		{"test_calc.py", "def test_x():\n    pass\x00\n"},
	} {
		a := Arm(c.rel, []byte(c.content), rng(3), nil)
		assert.Equal(t, c.content, string(a.Content), c.rel)
		assert.Empty(t, a.Wires, c.rel)
	}
}

// TestNamesVaryAndNeverCollide: two jobs get different wire names, and a wire never
// takes a name the proposal defines.
func TestNamesVaryAndNeverCollide(t *testing.T) {
	a := Arm("calc_test.go", []byte(goProposal), rng(4), nil)
	b := Arm("calc_test.go", []byte(goProposal), rng(5), nil)
	assert.NotEqual(t, Names(a.Wires), Names(b.Wires))
	for _, w := range append(a.Wires, b.Wires...) {
		assert.NotEqual(t, "TestAdd", w.Name)
		assert.True(t, strings.HasPrefix(w.Name, "Test"), w.Name)
	}
}

func junitOutcomes(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testsuite>testcase"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	out := map[string]string{}
	for _, c := range doc.Cases {
		switch {
		case c.Failure != nil || c.Error != nil:
			out[c.Name] = "fail"
		case c.Skipped != nil:
			out[c.Name] = "skip"
		default:
			out[c.Name] = "pass"
		}
	}
	return out
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644))
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test")
		dir = parent
	}
}

func testifyVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/stretchr/testify" {
			return f[1]
		}
	}
	t.Fatal("go.mod does not require testify")
	return ""
}

func TestScrubLeavesTheProposalsLines(t *testing.T) {
	wires := []Wire{{Name: "TestMergeItemSingle20", Want: MustFail}, {Name: "test_sort_key_empty_12", Want: MustFail}}
	goOut := "\x16=== RUN   TestAdd\n\x16--- PASS: TestAdd (0.00s)\n\x16=== RUN   TestMergeItemSingle20\n" +
		"    calc_test.go:20: \n        \tError Trace:\tcalc_test.go:20\n        \tError: Not equal\n\x16--- FAIL: TestMergeItemSingle20 (0.00s)\n" +
		"\x16=== RUN   TestSub\n    calc_test.go:9: Sub(3, 1) = 4, want 2\n\x16--- FAIL: TestSub (0.00s)\n\x16FAIL\n"
	got := string(Scrub([]byte(goOut), wires))
	assert.NotContains(t, got, "MergeItem")
	assert.NotContains(t, got, "Not equal")
	assert.Contains(t, got, "Sub(3, 1) = 4, want 2")
	assert.Contains(t, got, "--- FAIL: TestSub")

	pyOut := "F.F\n=================================== FAILURES ===================================\n" +
		"____________________________ test_sort_key_empty_12 ____________________________\n\n    def test_sort_key_empty_12():\n>       assert 2 + 2 == 5\nE       assert (2 + 2) == 5\n\n" +
		"___________________________________ test_add ___________________________________\n\n    def test_add():\n>       assert add(2, 3) == 5\nE       assert -1 == 5\n" +
		"=========================== short test summary info ============================\n" +
		"FAILED test_calc.py::test_sort_key_empty_12 - assert (2 + 2) == 5\nFAILED test_calc.py::test_add - assert -1 == 5\n2 failed, 1 passed in 0.02s\n"
	got = string(Scrub([]byte(pyOut), wires))
	assert.NotContains(t, got, "sort_key")
	assert.NotContains(t, got, "2 + 2")
	assert.Contains(t, got, "E       assert -1 == 5")
	assert.Contains(t, got, "FAILED test_calc.py::test_add")
	assert.Equal(t, pyOut, string(Scrub([]byte(pyOut), nil)), "no wires, nothing taken")
}

// A test module with the shapes a twin must copy right: decorators with parametrize, a
// fixture, a signature over two lines with a comment, an early return, a triple-quoted
// string whose lines start at column 0, a nested helper and a test on its def's line.
const pyShapes = `import pytest

from calc import add


@pytest.mark.parametrize("a,b,want", [
    (2, 3, 5),
    (1, 1, 2),
])
def test_param(a, b, want):  # a comment: with a colon
    assert add(a, b) == want


@pytest.fixture
def two():
    return 2


def test_fixture_and_return(two,
                            tmp_path):
    if two == 2:
        return
    assert False


def test_text():
    text = """first
second line at column 0
"""
    def helper(x):
        return add(x, 1)
    assert text.splitlines()[1].startswith("second")
    assert helper(1) == 2


def test_one_line(): assert add(1, 2) == 3
`

// TestPythonTwinsFailInTheFirstRunOnly runs the twins of every shape under real pytest:
// each twin's every case fails in the first run and passes in a later one, while the
// originals pass in both; a test whose body is on its def's line gets no twin; a run
// that selects tests gets twins of those only.
func TestPythonTwinsFailInTheFirstRunOnly(t *testing.T) {
	python := "/usr/bin/python3"
	if exec.Command(python, "-c", "import pytest").Run() != nil {
		t.Skip("Debian's python3 with pytest is not installed")
	}
	armed := Arm("test_calc.py", []byte(pyShapes), rng(7), nil)
	var twins []Wire
	for _, w := range armed.Wires {
		if w.Twin != "" {
			twins = append(twins, w)
		}
	}
	require.Equal(t, []string{"test_param", "test_fixture_and_return", "test_text"},
		[]string{twins[0].Twin, twins[1].Twin, twins[2].Twin}, "no twin of test_one_line")
	require.Len(t, twins, 3)

	dir := t.TempDir()
	write(t, dir, "calc.py", "def add(a, b):\n    return a + b\n")
	write(t, dir, "test_calc.py", string(armed.Content))
	for _, run := range []string{"1", "2"} {
		report := filepath.Join(t.TempDir(), "report.xml")
		cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml="+report, "test_calc.py")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), RunEnv+"="+run)
		out, _ := cmd.CombinedOutput()
		cases := junitOutcomes(t, report)
		for _, name := range []string{"test_param[2-3-5]", "test_param[1-1-2]", "test_fixture_and_return", "test_text", "test_one_line"} {
			require.Equal(t, "pass", cases[name], "run %s: %s; pytest said:\n%s\n%s", run, name, out, armed.Content)
		}
		want := map[string]string{"1": "fail", "2": "pass"}[run]
		for _, w := range twins {
			for name, got := range cases {
				if name == w.Name || strings.HasPrefix(name, w.Name+"[") {
					assert.Equal(t, want, got, "run %s: %s, the twin of %s", run, name, w.Twin)
				}
			}
		}
		assert.Len(t, cases, 5+4+5, "the originals' cases, the twins' and the other wires (two before, pytest.raises, two after)")
	}

	picked := Arm("test_calc.py", []byte(pyShapes), rng(7), []string{"test_text"})
	var of []string
	for _, w := range picked.Wires {
		if w.Twin != "" {
			of = append(of, w.Twin)
		}
	}
	assert.Equal(t, []string{"test_text"}, of)
}

// A Go test file with the shapes a twin must copy right: a test on one line, a
// *testing.T by another name, subtests, an early return, a t.Fatal, a panic the test
// recovers from, and a test whose *testing.T is unnamed (no twin).
const goShapes = `package calc

import "testing"

func TestOneLine(t *testing.T) { if Add(1, 2) != 3 { t.Fatal("1+2") } }

func TestOtherName(tt *testing.T) {
	for _, c := range []struct{ a, b, want int }{{1, 1, 2}, {2, 3, 5}} {
		tt.Run("case", func(t *testing.T) {
			if Add(c.a, c.b) != c.want {
				t.Errorf("Add(%d, %d)", c.a, c.b)
			}
		})
	}
}

func TestEarlyReturn(t *testing.T) {
	if Add(0, 0) == 0 {
		return
	}
	t.Fatal("never")
}

func TestRecovers(t *testing.T) {
	defer func() { _ = recover() }()
	panic("handled")
}

func TestUnnamed(*testing.T) {}
`

// TestGoTwinsFailInTheFirstRunOnly runs the twins of every shape under the real go test:
// each fails in the first run and passes in a later one, while the originals pass.
func TestGoTwinsFailInTheFirstRunOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	armed := Arm("calc_test.go", []byte(goShapes), rng(8), nil)
	twins := map[string]string{}
	for _, w := range armed.Wires {
		if w.Twin != "" {
			twins[w.Twin] = w.Name
		}
	}
	require.Len(t, twins, 4, "every test but the one with an unnamed *testing.T: %v", twins)
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n")
	write(t, dir, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	write(t, dir, "calc_test.go", string(armed.Content))
	for run, want := range map[string]string{"1": "fail", "2": "pass"} {
		outcomes, out := goTestOutcomes(t, dir, run)
		for _, name := range []string{"TestOneLine", "TestOtherName", "TestEarlyReturn", "TestRecovers", "TestUnnamed"} {
			require.Equal(t, "pass", outcomes[name], "run %s: %s; go test said:\n%s", run, name, out)
		}
		for of, twin := range twins {
			assert.Equal(t, want, outcomes[twin], "run %s: the twin of %s", run, of)
		}
		assert.Empty(t, Check(armed.Wires, outcomes, true, run == "1"))
	}
}
