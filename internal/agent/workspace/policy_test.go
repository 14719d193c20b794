package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCIWorkflowsCannotBeChangedByTheTools: a coder may read the repository's workflows
// (they say how its tests run) but not add, change or delete one, nor a .gitmodules.
func TestCIWorkflowsCannotBeChangedByTheTools(t *testing.T) {
	w := newWorkspace(t, Options{}, ".github/workflows/ci.yml", "on: push\n", ".github/CODEOWNERS", "* @team\n")
	const workflows = "the repository's CI workflows (.github/workflows/) stay as they are"
	refused := []struct {
		name, tool, args, want string
	}{
		{"add a workflow", toolWrite, `{"path": ".github/workflows/evil.yml", "content": "on: push\n"}`,
			"error: .github/workflows/evil.yml cannot be written: " + workflows},
		{"change a workflow", toolWrite, `{"path": ".github/workflows/ci.yml", "content": "on: pull_request_target\n"}`,
			"error: .github/workflows/ci.yml cannot be written: " + workflows},
		{"delete a workflow", toolDelete, `{"path": ".github/workflows/ci.yml"}`,
			"error: .github/workflows/ci.yml cannot be deleted: " + workflows},
		{"add one in another case", toolWrite, `{"path": ".GitHub/Workflows/evil.yml", "content": "on: push\n"}`,
			"error: .GitHub/Workflows/evil.yml cannot be written: " + workflows},
		{"add one deeper down", toolWrite, `{"path": ".github/workflows/sub/evil.yml", "content": "on: push\n"}`,
			"error: .github/workflows/sub/evil.yml cannot be written: " + workflows},
		{"add submodules", toolWrite, `{"path": ".gitmodules", "content": "[submodule \"x\"]\n\turl = -evil\n"}`,
			"error: .gitmodules cannot be written: the submodule list (.gitmodules) stays as it is"},
		{"add submodules as Windows spells it", toolWrite, `{"path": "GITMOD~1", "content": "x"}`,
			"error: GITMOD~1 cannot be written: the submodule list (.gitmodules) stays as it is"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, call(t, w, c.tool, c.args))
		})
	}
	assert.Equal(t, "on: push\n", call(t, w, toolRead, `{"path": ".github/workflows/ci.yml"}`), "reading is fine")
	assert.Equal(t, "replaced .github/CODEOWNERS (9 bytes)", call(t, w, toolWrite, `{"path": ".github/CODEOWNERS", "content": "* @other\n"}`),
		"the rest of .github is the coder's")
	assert.NoFileExists(t, filepath.Join(w.Dir(), ".github", "workflows", "evil.yml"))
	assert.NoFileExists(t, filepath.Join(w.Dir(), ".gitmodules"))
	data, err := os.ReadFile(filepath.Join(w.Dir(), ".github", "workflows", "ci.yml"))
	require.NoError(t, err)
	assert.Equal(t, "on: push\n", string(data))
}
