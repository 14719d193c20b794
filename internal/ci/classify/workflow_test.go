package classify

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// repoRoot is the module's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "go.mod not found")
		dir = parent
	}
}

// workflowFiles finds every GitHub Actions workflow in the repository: YAML files with
// top-level `on` and `jobs` keys, wherever they are (.github/workflows and templates).
func workflowFiles(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".dixit", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext != ".yml" && ext != ".yaml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc map[string]any
		if yaml.Unmarshal(data, &doc) != nil {
			return nil
		}
		_, on := doc["on"]
		_, jobs := doc["jobs"]
		if on && jobs {
			found = append(found, p)
		}
		return nil
	})
	require.NoError(t, err)
	return found
}

// Every workflow in the repository passes the static check; the template is among them.
func TestWorkflowIsLocked(t *testing.T) {
	root := repoRoot(t)
	files := workflowFiles(t, root)
	rel := make([]string, len(files))
	for i, f := range files {
		rel[i], _ = filepath.Rel(root, f)
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NoError(t, CheckWorkflow(rel[i], data))
	}
	assert.Contains(t, rel, filepath.Join("internal", "ci", "classify", "workflow", "dixit-classify.yml"))
	tmpl, err := os.ReadFile(filepath.Join(root, "internal", "ci", "classify", "workflow", "dixit-classify.yml"))
	require.NoError(t, err)
	assert.Equal(t, tmpl, Workflow, "the embedded template is the file")
}

// The template says what docs/actions.md and the backend rely on.
func TestWorkflowTemplateShape(t *testing.T) {
	var wf struct {
		RunName string `yaml:"run-name"`
		On      struct {
			Dispatch struct {
				Inputs map[string]struct {
					Required bool `yaml:"required"`
				} `yaml:"inputs"`
			} `yaml:"workflow_dispatch"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Timeout  int `yaml:"timeout-minutes"`
			Strategy struct {
				FailFast bool              `yaml:"fail-fast"`
				Matrix   map[string]string `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(Workflow, &wf))
	assert.Contains(t, wf.RunName, "${{ inputs.batch_id }}", "the backend finds its run by the batch id in the run name")
	for _, in := range []string{"run_id", "batch_id", "batch_ref", "coders", "reruns", "bot_version"} {
		assert.Contains(t, wf.On.Dispatch.Inputs, in)
	}
	assert.Equal(t, map[string]string{"contents": "read"}, wf.Permissions)
	job := wf.Jobs["classify"]
	assert.Equal(t, "${{ fromJSON(inputs.coders) }}", job.Strategy.Matrix["coder"])
	assert.False(t, job.Strategy.FailFast, "one coder's failure must not cancel the others")
	assert.Positive(t, job.Timeout)
	var uploaded bool
	for _, s := range job.Steps {
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			uploaded = true
			assert.Equal(t, "3", s.With["retention-days"])
			assert.Equal(t, "error", s.With["if-no-files-found"])
			assert.Equal(t, "results/results.json", s.With["path"])
		}
	}
	assert.True(t, uploaded)
}

// lockedBase is a minimal workflow that passes; each bad case changes one thing.
const lockedBase = `name: x
on:
  workflow_dispatch:
    inputs:
      batch_id:
        type: string
permissions:
  contents: read
jobs:
  j:
    runs-on: ubuntu-24.04
    timeout-minutes: 10
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          persist-credentials: false
      - uses: ./.github/actions/local
      - env:
          BATCH_ID: ${{ inputs.batch_id }}
        run: echo "$BATCH_ID"
`

func TestCheckWorkflowCatchesEachBadCase(t *testing.T) {
	require.NoError(t, CheckWorkflow("base.yml", []byte(lockedBase)))
	cases := []struct {
		name, old, new, want string
	}{
		{"pull_request_target", "  workflow_dispatch:\n", "  pull_request_target:\n  workflow_dispatch:\n", "base.yml:3: pull_request_target"},
		{"pull_request_target as a list", "on:\n  workflow_dispatch:\n    inputs:\n      batch_id:\n        type: string\n", "on: [push, pull_request_target]\n", "pull_request_target"},
		{"pull_request_target alone", "on:\n  workflow_dispatch:\n    inputs:\n      batch_id:\n        type: string\n", "on: pull_request_target\n", "pull_request_target"},
		{"action by tag", "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "actions/checkout@v4", "uses: actions/checkout@v4: pin to a full 40-hex commit SHA"},
		{"action by short SHA", "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "actions/checkout@11bd719", "pin to a full 40-hex"},
		{"action by branch", "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "actions/checkout@main", "pin to a full 40-hex"},
		{"docker image by tag", "./.github/actions/local", "docker://alpine:3", "pin the image by digest"},
		{"reusable workflow by tag", "    runs-on: ubuntu-24.04\n    timeout-minutes: 10\n    steps:", "    uses: org/repo/.github/workflows/w.yml@v1\n  k:\n    runs-on: x\n    timeout-minutes: 1\n    steps:", "uses: org/repo/.github/workflows/w.yml@v1"},
		{"github.event in run", `run: echo "$BATCH_ID"`, `run: echo "${{ github.event.inputs.batch_id }}"`, "${{ github.event.inputs.batch_id }} inside run"},
		{"inputs in run", `run: echo "$BATCH_ID"`, `run: echo ${{ inputs.batch_id }}`, "${{ inputs.batch_id }}"},
		{"github context in run", `run: echo "$BATCH_ID"`, "run: |\n          echo ok\n          git log ${{ github.head_ref }}", "${{ github.head_ref }}"},
		{"matrix in run", `run: echo "$BATCH_ID"`, `run: echo ${{ matrix.coder.name }}`, "${{ matrix.coder.name }}"},
		{"no permissions", "permissions:\n  contents: read\n", "", "no top-level permissions"},
		{"write scope", "contents: read", "contents: write", "permissions: contents: write: want read or none"},
		{"write-all", "permissions:\n  contents: read\n", "permissions: write-all\n", "permissions: write-all"},
		{"job write scope", "    timeout-minutes: 10\n", "    timeout-minutes: 10\n    permissions:\n      pull-requests: write\n", "pull-requests: write"},
		{"secrets", "BATCH_ID: ${{ inputs.batch_id }}", "BATCH_ID: ${{ secrets.TOKEN }}", "refers to secrets"},
		{"credentials kept", "        with:\n          persist-credentials: false\n", "", "persist-credentials: false"},
		{"credentials true", "persist-credentials: false", "persist-credentials: true", "persist-credentials: false"},
		{"no timeout", "    timeout-minutes: 10\n", "", "job j: no timeout-minutes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, lockedBase, c.old, "the case must change the base")
			bad := strings.Replace(lockedBase, c.old, c.new, 1)
			err := CheckWorkflow("base.yml", []byte(bad))
			require.Error(t, err, bad)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	for _, ok := range []struct{ old, new string }{
		{"permissions:\n  contents: read\n", "permissions: read-all\n"},
		{"permissions:\n  contents: read\n", "permissions: {}\n"},
		{"contents: read", "contents: none"},
		{"./.github/actions/local", "docker://alpine@sha256:" + strings.Repeat("a", 64)},
	} {
		assert.NoError(t, CheckWorkflow("base.yml", []byte(strings.Replace(lockedBase, ok.old, ok.new, 1))), ok.new)
	}
	assert.ErrorContains(t, CheckWorkflow("x.yml", []byte("a: [")), "invalid YAML")
	assert.ErrorContains(t, CheckWorkflow("x.yml", []byte("- a\n")), "not a workflow")
}

// The template fails the check once any of its protections is removed.
func TestTheTemplateWouldFailWithoutItsProtections(t *testing.T) {
	for _, c := range []struct{ old, new string }{
		{"contents: read", "contents: write"},
		{"persist-credentials: false", "persist-credentials: true"},
		{`--coder "$CODER"`, `--coder "${{ matrix.coder.name }}"`},
		{"@11bd71901bbe5b1630ceea73d27597364c9af683", "@v4"},
	} {
		require.True(t, bytes.Contains(Workflow, []byte(c.old)), c.old)
		assert.Error(t, CheckWorkflow("t.yml", bytes.Replace(Workflow, []byte(c.old), []byte(c.new), 1)), c.new)
	}
}
