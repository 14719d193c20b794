package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// A live tester of a Python repository may submit a diff of an existing test file. It is
// applied to the base at once: one that changes no test function, or does not apply, is
// told to the model with the reason, and a good one proposes the patched file with the
// tests it adds or changes.
func TestATesterSubmitsADiffOfAnExistingTestFile(t *testing.T) {
	contract, _ := languages.Preset("python")
	r := newRig(t, "ivy")
	tree, err := r.opts.Workshop.WriteFiles([]gitstate.File{
		{Path: "calc/__init__.py", Content: []byte("def add(a, b):\n    return a + b\n")},
		{Path: "tests/test_calc.py", Content: []byte("from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")},
	})
	require.NoError(t, err)
	r.base, err = r.opts.Workshop.Commit("refs/dixit/r/base", tree, "python base")
	require.NoError(t, err)
	tester := r.tester(t, contract)

	const head = "diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n"
	comment := head + "@@ -1,3 +1,4 @@\n+# more tests\n from calc import add\n \n \n"
	stale := head + "@@ -4,2 +4,2 @@\n def test_add():\n-    assert add(1, 1) == 2\n+    assert add(1, 1) == 3\n"
	good := head + "@@ -3,3 +3,7 @@\n \n def test_add():\n     assert add(1, 2) == 3\n+\n+\n+def test_add_zero():\n+    assert add(0, 0) == 0\n"
	r.srv.Enqueue(
		llmtest.Calls(llmtest.ToolCall{ID: "a", Name: "submit_test", Arguments: args(map[string]string{"diff": comment})}),
		llmtest.Calls(llmtest.ToolCall{ID: "b", Name: "submit_test", Arguments: args(map[string]string{"diff": stale})}),
		llmtest.Calls(llmtest.ToolCall{ID: "c", Name: "submit_test", Arguments: args(map[string]string{"diff": good})}),
	)
	p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, "tests/test_calc.py", p.Path)
	assert.Equal(t, []string{"tests/test_calc.py::test_add_zero"}, p.Select)
	assert.Contains(t, string(p.Content), "def test_add():\n    assert add(1, 2) == 3\n\n\ndef test_add_zero():")

	var said []string
	for _, req := range r.srv.Requests() {
		for _, m := range req.Messages {
			said = append(said, m.Content)
		}
	}
	all := strings.Join(said, "\n")
	assert.Contains(t, all, "error: the diff adds or changes no test function in tests/test_calc.py")
	assert.Contains(t, all, "error: the diff does not apply to tests/test_calc.py on the base revision: hunk 1")

	reqs := r.srv.Requests()
	require.NotEmpty(t, reqs)
	var schema string
	for _, tool := range reqs[0].Tools {
		if tool.Function.Name == "submit_test" {
			schema = string(tool.Function.Parameters)
		}
	}
	assert.Contains(t, schema, `"diff"`, "a Python tester is offered diffs")
	goc, _ := languages.Preset("go")
	assert.NotContains(t, string(submitToolFor(goc).Parameters), `"diff"`, "a Go tester gives whole files")
}
