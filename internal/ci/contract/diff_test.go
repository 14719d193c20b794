package contract_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

const calcTests = "from calc import add\n\n\ndef test_one():\n    assert add(1, 1) == 2\n\n\ndef test_two():\n    assert add(2, 2) == 4\n"

var calcBase = fstest.MapFS{
	"calc/__init__.py":    {Data: []byte("def add(a, b):\n    return a + b\n")},
	"tests/test_calc.py":  {Data: []byte(calcTests)},
	"tests/helpers.py":    {Data: []byte("X = 1\n")},
	"tests/test_other.py": {Data: []byte("def test_x():\n    pass\n")},
}

const header = "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n"

// A tester's diff of an existing test file proposes the tests it adds or changes, on the
// file as the base has it; anything else is refused with words the tester can act on.
func TestApplyTestDiff(t *testing.T) {
	py, ok := languages.Preset("python")
	require.True(t, ok)
	goc, ok := languages.Preset("go")
	require.True(t, ok)
	cases := []struct {
		name     string
		c        contract.Contract
		diff     string
		path     string
		selected []string
		content  string
		problem  string
	}{
		{name: "a new function", c: py, diff: header + "@@ -7,3 +7,7 @@\n \n def test_two():\n     assert add(2, 2) == 4\n+\n+\n+def test_three():\n+    assert add(3, 3) == 6\n",
			path: "tests/test_calc.py", selected: []string{"tests/test_calc.py::test_three"},
			content: calcTests + "\n\ndef test_three():\n    assert add(3, 3) == 6\n"},
		{name: "a changed function", c: py, diff: header + "@@ -4,2 +4,2 @@\n def test_one():\n-    assert add(1, 1) == 2\n+    assert add(1, 1) == 2 and add(0, 1) == 1\n",
			path: "tests/test_calc.py", selected: []string{"tests/test_calc.py::test_one"}},
		{name: "a plain diff -u, one component stripped", c: py,
			diff: "--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -4,2 +4,2 @@\n def test_one():\n-    assert add(1, 1) == 2\n+    assert add(1, 1) == 3\n",
			path: "tests/test_calc.py", selected: []string{"tests/test_calc.py::test_one"}},
		{name: "a new file", c: py, diff: "diff --git a/tests/test_new.py b/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_new.py\n@@ -0,0 +1,2 @@\n+def test_n():\n+    pass\n",
			path: "tests/test_new.py", selected: []string{"tests/test_new.py::test_n"}},
		{name: "a comment only", c: py, diff: header + "@@ -1,3 +1,4 @@\n+# Tests of calc.\n from calc import add\n \n \n",
			problem: "the diff adds or changes no test function in tests/test_calc.py"},
		{name: "a comment inside a test", c: py, diff: header + "@@ -4,2 +4,3 @@\n def test_one():\n+    # one and one\n     assert add(1, 1) == 2\n",
			problem: "adds or changes no test function"},
		{name: "a helper only", c: py, diff: header + "@@ -1,3 +1,7 @@\n from calc import add\n+\n+\n+def helper():\n+    return 1\n \n \n",
			problem: "adds or changes no test function"},
		{name: "not against the base", c: py, diff: header + "@@ -4,2 +4,2 @@\n def test_one():\n-    assert add(1, 1) == 3\n+    assert add(1, 1) == 2\n",
			problem: "the diff does not apply to tests/test_calc.py on the base revision: hunk 1"},
		{name: "a file the base lacks", c: py, diff: "--- a/tests/test_gone.py\n+++ b/tests/test_gone.py\n@@ -1,1 +1,1 @@\n-x\n+y\n",
			problem: "the diff edits tests/test_gone.py, which the base revision does not have"},
		{name: "two files", c: py, diff: header + "@@ -4,2 +4,2 @@\n def test_one():\n-    assert add(1, 1) == 2\n+    assert add(1, 1) == 3\n" +
			"diff --git a/tests/test_other.py b/tests/test_other.py\n--- a/tests/test_other.py\n+++ b/tests/test_other.py\n@@ -1,2 +1,2 @@\n def test_x():\n-    pass\n+    assert 1\n",
			problem: "the diff changes 2 files (tests/test_calc.py, tests/test_other.py): a proposal changes one test file"},
		{name: "code, not a test file", c: py, diff: "diff --git a/calc/__init__.py b/calc/__init__.py\n--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a + b\n+    return a - b\n",
			problem: "is not one of the places tests may go"},
		{name: "a deletion", c: py, diff: "diff --git a/tests/test_other.py b/tests/test_other.py\ndeleted file mode 100644\n--- a/tests/test_other.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def test_x():\n-    pass\n",
			problem: "the diff deletes tests/test_other.py"},
		{name: "not a diff", c: py, diff: "def test_x():\n    pass\n", problem: "the diff changes no file"},
		{name: "go", c: goc, diff: "diff --git a/x_test.go b/x_test.go\n--- a/x_test.go\n+++ b/x_test.go\n@@ -1,1 +1,1 @@\n-package x\n+package x // more\n",
			problem: "the judge runs single test functions of Python test files under pytest only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := contract.ApplyTestDiff(tc.c, []byte(tc.diff), calcBase)
			if tc.problem != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.problem)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.path, got.Path)
			assert.Equal(t, tc.selected, got.Select)
			if tc.content != "" {
				assert.Equal(t, tc.content, string(got.Content))
			}
		})
	}
}
