package ci

import (
	"context"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// A tester that names a place gets its test built and run in the package it is about,
// in that package's directory, as the ecosystem's own runner would.
func TestTestRunsWhereItsTesterPutIt(t *testing.T) {
	l := newGoJudge(t, 0, nil)
	tree := goModule().With(
		"sub/y.go", "package sub\n\n// Double doubles.\nfunc Double(n int) int { return 2 * n }\n",
		"sub/y_test.go", "package sub\n\nimport \"testing\"\n\nfunc TestCoderOwn(t *testing.T) { t.Fatal(\"coder test ran\") }\n",
		"sub/testdata/in.txt", "21\n",
	)
	test := []byte("package sub\n\nimport (\n\t\"os\"\n\t\"strings\"\n\t\"strconv\"\n\t\"testing\"\n)\n\n" +
		"func TestDoubleFromFile(t *testing.T) {\n\tb, err := os.ReadFile(\"testdata/in.txt\")\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n" +
		"\tn, _ := strconv.Atoi(strings.TrimSpace(string(b)))\n\tif Double(n) != 42 {\n\t\tt.Fatal(Double(n))\n\t}\n}\n")
	vs, err := l.Run(context.Background(), 2, []Job{
		{Coder: "a", Tree: tree, Test: Test{ID: "t1", Path: "sub/y_dixit_test.go", Content: test}},
		{Coder: "a", Tree: tree, Test: Test{ID: "t2", Content: test}},
	})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 2, vs[0].Runs)
	assert.Equal(t, BuildFailed, vs[1].Outcome, "at the default place the file is in the root's package: %s", vs[1].Output)

	_, err = l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: tree, Test: Test{ID: "t3", Path: "sub/y.go", Content: test}}})
	require.Error(t, err, "a place outside the contract's is never placed")
	assert.Contains(t, err.Error(), `"sub/y.go"`)
}

func TestPythonTestInTestsWithSrcLayout(t *testing.T) {
	c, ok := languages.Preset("python")
	require.True(t, ok)
	c.Prepare, c.Manifests = "", nil
	if exec.Command("python3", "-c", "import pytest").Run() != nil {
		// pyenv's python3 comes first on PATH here, without pytest; Debian's has it.
		if exec.Command("/usr/bin/python3", "-c", "import pytest").Run() != nil {
			t.Skip("pytest is not importable by python3 here")
		}
		c.ToolchainPath = "/usr/bin/python3"
	}
	l := depsJudge(t, c, "")
	tree := mapTree{
		"pyproject.toml":         "[project]\nname = \"calc\"\nversion = \"1\"\n",
		"src/calc/__init__.py":   "",
		"src/calc/ops.py":        "def double(n):\n    return 2 * n\n",
		"tests/test_ops.py":      "def test_coder_own():\n    assert False, 'coder test ran'\n",
		"tests/data/numbers.txt": "21\n",
	}
	test := []byte("import pathlib\nfrom calc.ops import double\n\n" +
		"def test_double():\n    n = int((pathlib.Path(__file__).parent / 'data' / 'numbers.txt').read_text())\n    assert double(n) == 42\n")
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: tree, Test: Test{ID: "t1", Path: "tests/test_double.py", Content: test}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}
