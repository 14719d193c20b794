package ci

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// presetJudge is a Local for a preset, or a skip when the host lacks its toolchain.
func presetJudge(t *testing.T, name string, probe ...string) *Local {
	t.Helper()
	if err := exec.Command(probe[0], probe[1:]...).Run(); err != nil {
		t.Skipf("%s preset not tested: %v is unavailable here", name, probe)
	}
	c, _ := languages.Preset(name)
	c.Timeout = 20 * time.Second
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// pytestFirst puts Debian's python3, which CI gives pytest, first on PATH when the
// python3 there now (pyenv's, say) cannot import it.
func pytestFirst(t testing.TB) {
	if exec.Command("python3", "-c", "import pytest").Run() != nil &&
		exec.Command("/usr/bin/python3", "-c", "import pytest").Run() == nil {
		t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	}
}

func TestPresetPython(t *testing.T) {
	pytestFirst(t)
	l := presetJudge(t, "python", "python3", "-c", "import pytest")
	tree := mapTree{
		"calc.py":         "def add(a, b):\n    return a + b\n",
		"conftest.py":     "raise SystemExit('the coder conftest must be excluded')\n",
		"test_private.py": "def test_private():\n    assert False\n",
	}
	runBatch(t, l, 2, []judgeCase{
		{name: "pass", tree: tree, want: []Outcome{Pass}, runs: 2,
			test: []byte("from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n")},
		{name: "fail", tree: tree, want: []Outcome{Fail}, output: "assert 5 == 6",
			test: []byte("from calc import add\n\ndef test_add():\n    assert add(2, 3) == 6\n")},
	})
}

// A Python job reads the interpreter's own compiled library (pytest, the standard
// library) instead of compiling it before its first test, and cannot change it for the
// jobs after it: the mirror of it is the judge's, read-only.
func TestPythonRunsReadTheInterpretersOwnBytecode(t *testing.T) {
	pytestFirst(t)
	l := presetJudge(t, "python", "python3", "-c", "import pytest")
	if !l.sb.Bubblewrap() {
		t.Skip("the mirror of the interpreter's bytecode needs bubblewrap's mounts")
	}
	test := `import importlib.util, json, os
import _pytest


def test_the_library_is_compiled_already():
    for mod in (_pytest, json):
        pyc = importlib.util.cache_from_source(mod.__file__)
        assert pyc.startswith("/tmp/.dixit-keep/pycache/"), pyc
        assert os.path.islink(pyc), pyc + " was compiled by this job"


def test_no_job_can_change_it():
    pyc = importlib.util.cache_from_source(json.__file__)
    for attempt in (lambda: open(pyc, "ab"), lambda: os.replace(__file__, pyc), lambda: os.unlink(pyc)):
        try:
            attempt()
        except OSError:
            continue
        raise AssertionError("a job changed " + pyc)
`
	runBatch(t, l, 2, []judgeCase{
		{name: "mirror", tree: mapTree{"calc.py": "x = 1\n"}, want: []Outcome{Pass}, runs: 2, test: []byte(test)},
	})
}

// A Python judge compiles the first tree it lays out once, and its later jobs read that
// bytecode instead of compiling the tree's modules again; a module a job's tree changed
// is its own, compiled from its own source.
func TestPythonJobsReadTheTreesBytecodeCompiledOnce(t *testing.T) {
	pytestFirst(t)
	l := presetJudge(t, "python", "python3", "-c", "import pytest")
	if !l.sb.Bubblewrap() {
		t.Skip("the seed of the tree's bytecode needs bubblewrap's mounts")
	}
	tree := mapTree{"calc.py": "def add(a, b):\n    return a + b\n", "other.py": "X = 1\n"}
	changed := tree.With("calc.py", "def add(a, b):\n    return b + a  # a coder's own\n")
	test := func(want string) []byte {
		return []byte(`import importlib.util, os
import calc, other


def test_seeded():
    pyc = importlib.util.cache_from_source(other.__file__)
    assert os.path.exists(pyc)
    with open(pyc, "rb") as f:
        flags = int.from_bytes(f.read(8)[4:8], "little")
    assert flags == 3, "checked-hash bytecode from the seed"
    assert calc.add(2, 3) == 5
    assert ("a coder" in open(calc.__file__).read()) == ` + want + `
    try:
        open(pyc, "ab")
    except OSError:
        pass
    else:
        raise AssertionError("a job could change the seed")
`)
	}
	runBatch(t, l, 2, []judgeCase{
		{name: "first", tree: tree, want: []Outcome{Pass}, runs: 2, test: test("False")},
	})
	runBatch(t, l, 2, []judgeCase{
		{name: "same tree", tree: tree, want: []Outcome{Pass}, runs: 2, test: test("False")},
		{name: "a changed module", tree: changed, want: []Outcome{Pass}, runs: 2, test: test("True")},
	})
}

// TestPythonToolchain checks the interpreter is usable in the sandbox even without
// pytest, with unittest.
func TestPythonToolchain(t *testing.T) {
	if err := exec.Command("python3", "-c", "pass").Run(); err != nil {
		t.Skip("python3 is unavailable here")
	}
	c := Contract{Path: "test_dixit_{id}.py", Run: "python3 -m unittest -q test_dixit_{id}", Timeout: 20 * time.Second, Toolchain: "python"}
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	tree := mapTree{"calc.py": "def add(a, b):\n    return a + b\n"}
	body := "import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), %s)\n"
	runBatch(t, l, 2, []judgeCase{
		{name: "pass", tree: tree, want: []Outcome{Pass}, runs: 2, test: []byte(fmt.Sprintf(body, "5"))},
		{name: "fail", tree: tree, want: []Outcome{Fail}, output: "5 != 6", test: []byte(fmt.Sprintf(body, "6"))},
	})
}

func TestPresetNode(t *testing.T) {
	l := presetJudge(t, "node", "node", "-e", "0")
	tree := mapTree{
		"calc.js":         "exports.add = (a, b) => a + b;\n",
		"private.test.js": "throw new Error('the coder test must be excluded');\n",
	}
	body := "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('./calc');\n\ntest('add', () => { assert.strictEqual(add(2, 3), %s); });\n"
	runBatch(t, l, 2, []judgeCase{
		{name: "pass", tree: tree, want: []Outcome{Pass}, runs: 2, test: []byte(fmt.Sprintf(body, "5"))},
		{name: "fail", tree: tree, want: []Outcome{Fail}, output: "Expected values to be strictly equal", test: []byte(fmt.Sprintf(body, "6"))},
	})
}

// TestEveryPresetMakesAJudge: every language's preset is a contract the local judge takes.
func TestEveryPresetMakesAJudge(t *testing.T) {
	for _, name := range languages.Names() {
		c, ok := languages.Preset(name)
		require.True(t, ok, name)
		_, err := LocalOptions{Contract: c}.withDefaults()
		assert.NoError(t, err, name)
	}
}
