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
	armed := Arm("calc_test.go", []byte(goProposal), rng(1))
	require.Len(t, armed.Wires, 5, "two before, one through testify, two after")
	assert.Equal(t, "github.com/stretchr/testify/assert", armed.Wires[2].Via)

	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.sum"))
	require.NoError(t, err)
	write(t, dir, "go.mod", "module example.com/calc\n\ngo 1.22\n\nrequire github.com/stretchr/testify "+testifyVersion(t)+"\n")
	write(t, dir, "go.sum", string(sum))
	write(t, dir, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n")
	write(t, dir, "calc_test.go", string(armed.Content))
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, _ := cmd.Output() // failing wires make go test exit 1
	outcomes := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var ev struct{ Action, Test string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Test != "" && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip") {
			outcomes[ev.Test] = ev.Action
		}
	}
	require.Equal(t, "pass", outcomes["TestAdd"], "the proposal's own test; go test said:\n%s", out)
	for _, w := range armed.Wires {
		assert.Equal(t, w.Want, outcomes[w.Name], "wire %s (via %q)", w.Name, w.Via)
	}
	assert.Empty(t, Check(armed.Wires, outcomes, true))

	forged := map[string]string{"TestAdd": "pass"}
	for _, w := range armed.Wires {
		forged[w.Name] = "pass"
	}
	assert.Contains(t, Check(armed.Wires, forged, true), "must fail")
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
	armed := Arm("tests/test_calc.py", []byte(pyProposal), rng(2))
	require.Len(t, armed.Wires, 6, "two before, pytest.raises, raises, two after")
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
	assert.Empty(t, Check(armed.Wires, outcomes, true))
}

func TestCheck(t *testing.T) {
	wires := []Wire{{Name: "a", Want: MustPass}, {Name: "b", Want: MustFail, Via: "lib"}}
	cases := []struct {
		name     string
		outcomes map[string]string
		passed   bool
		want     string
	}{
		{"all as they must", map[string]string{"a": "pass", "b": "fail"}, true, ""},
		{"a failing wire passed", map[string]string{"a": "pass", "b": "pass"}, true, "must fail through lib (b) was reported as pass"},
		{"a passing wire failed", map[string]string{"a": "fail", "b": "fail"}, true, "must pass (a) was reported as fail"},
		{"a wire skipped", map[string]string{"a": "skip", "b": "fail"}, true, "was skipped"},
		{"a wire missing while the test passed", map[string]string{"a": "pass"}, true, "(b) never reported"},
		{"a wire missing while the test failed", map[string]string{"a": "pass"}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Check(wires, c.outcomes, c.passed)
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
		a := Arm(c.rel, []byte(c.content), rng(3))
		assert.Equal(t, c.content, string(a.Content), c.rel)
		assert.Empty(t, a.Wires, c.rel)
	}
}

// TestNamesVaryAndNeverCollide: two jobs get different wire names, and a wire never
// takes a name the proposal defines.
func TestNamesVaryAndNeverCollide(t *testing.T) {
	a := Arm("calc_test.go", []byte(goProposal), rng(4))
	b := Arm("calc_test.go", []byte(goProposal), rng(5))
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
