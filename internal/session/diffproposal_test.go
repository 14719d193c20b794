package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
)

// A scripted tester that writes its test as a diff of the repository's existing test
// file, as real LLM testers do: the run classifies the one function the diff adds on every
// coder (the wrong coder fails it, by name, then fixes its code), vets it, and keeps what
// it selects in summary.json; a whole-file proposal beside it is judged as before.
func TestATestersDiffIsClassifiedByTheFunctionItAdds(t *testing.T) {
	t.Parallel()
	pop := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(pop, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("spec.md", "Implement calc.mul(a, b): the product of two integers, negative ones included.\n")
	write("dixit.yml", "coders: 3\ntesters: 1\nreruns: 2\nexisting_tests: off\ntest:\n  preset: python\n")
	write("base/calc/__init__.py", "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    raise NotImplementedError\n")
	write("base/tests/test_calc.py", "from calc import add, mul\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
	right := "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
	write("coders/ann/1/calc/__init__.py", right)
	write("coders/bob/1/calc/__init__.py", right)
	write("coders/cy/1/calc/__init__.py", "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return abs(a) * abs(b)\n")
	write("coders/cy/2/calc/__init__.py", right) // told test 1 fails, it fixes negatives
	for _, c := range []string{"ann", "bob", "cy"} {
		write("coders/"+c+"/1/tests/test_calc.py", "from calc import add, mul\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
	}
	write("testers/ivy/1.diff", `diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -3,3 +3,7 @@ from calc import add, mul
 
 def test_add():
     assert add(1, 2) == 3
+
+
+def test_mul_negative():
+    assert mul(-2, 3) == -6
`)
	write("testers/ivy/2/tests/test_mul_zero.py", "from calc import mul\n\n\ndef test_mul_zero():\n    assert mul(0, 5) == 0\n")

	out, err := session.Run(context.Background(), session.Options{Population: pop, StateDir: t.TempDir(), BuildCache: buildCache})
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, orchestrate.TestersExhausted, res.Outcome, res.Reason)
	require.Len(t, res.Vetted, 1)
	v := res.Vetted[0]
	assert.Equal(t, "ivy-1", v.ID)
	assert.Equal(t, "tests/test_calc.py", v.Path)
	assert.Equal(t, []string{"tests/test_calc.py::test_mul_negative"}, v.Select)
	assert.Equal(t, []string{"ann", "bob"}, v.PassedBy)
	assert.Equal(t, []string{"cy"}, v.FailedBy)

	var cyOutput string
	for _, e := range res.Events {
		for _, c := range e.Cells {
			if c.Coder == "cy" && c.Test == "ivy-1" && c.Output != "" {
				cyOutput = c.Output
			}
		}
	}
	assert.Contains(t, cyOutput, "the report says tests/test_calc.py::test_mul_negative failed")

	require.Len(t, out.Summary.Vetted, 1)
	assert.Equal(t, []string{"tests/test_calc.py::test_mul_negative"}, out.Summary.Vetted[0].Select)
	require.NotNil(t, out.Summary.Vetted[0].OnBase)
	assert.Equal(t, runfile.TestsTheChange, out.Summary.Vetted[0].OnBase.Kind(), "the base's mul raises: the added function fails there")
	require.Len(t, res.Proposals, 2, "the whole file was judged too")
	assert.Empty(t, res.Proposals[1].Select)
}
