package classify

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
			// Public repositories vendored as the judge's test data keep their own
			// workflows, which GitHub never runs from here.
			if rel, _ := filepath.Rel(root, p); rel == filepath.Join("examples", "real") {
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

// Every workflow in the repository passes the static check, with one exemption (the
// release's publish job, lockCheck); the template and the release are among them.
func TestWorkflowIsLocked(t *testing.T) {
	root := repoRoot(t)
	files := workflowFiles(t, root)
	rel := make([]string, len(files))
	for i, f := range files {
		rel[i], _ = filepath.Rel(root, f)
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NoError(t, lockCheck(rel[i], data))
	}
	assert.Contains(t, rel, filepath.Join("internal", "ci", "classify", "workflow", "dixit-classify.yml"))
	assert.Contains(t, rel, filepath.FromSlash(releaseWorkflow), "the exemption's workflow is checked")
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

// The one exemption from CheckWorkflow's read-only rule. Publishing a release needs a token
// that writes contents (the GitHub Release and its files) and packages (the image on
// ghcr.io). One job of one workflow gets it, on conditions that keep it away from anything
// a branch, a pull request or a third party's action runs.
const (
	releaseWorkflow = ".github/workflows/release.yml"
	publishJob      = "publish"
	publishGuard    = "startsWith(github.ref, 'refs/tags/v')"
)

// lockCheck is CheckWorkflow for the repository's workflow at rel, with the publish job's
// write scopes allowed in release.yml alone, when publishExemption holds.
func lockCheck(rel string, data []byte) error {
	if filepath.ToSlash(rel) == releaseWorkflow {
		var err error
		if data, err = publishExemption(data); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
	}
	return CheckWorkflow(rel, data)
}

// publishExemption checks that the publish job keeps to its exemption, and returns the
// workflow with that job's two scopes turned to read (same lines, so CheckWorkflow's errors
// point where they should) for CheckWorkflow to judge everything else as usual:
//   - the workflow runs on pushed v* tags only: no branch, pull request or dispatch;
//   - the job runs only for a v* tag (its if:), after every other job of the workflow;
//   - it asks for exactly contents: write and packages: write;
//   - it uses no action but actions/checkout and actions/download-artifact: gh and docker,
//     already on the runner, publish; no third party's code sees the token.
func publishExemption(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("invalid YAML: %v", err)
	}
	root := doc.Content[0]
	jobs := get(root, "jobs")
	job := get(jobs, publishJob)
	if job == nil {
		return data, nil // nothing to exempt
	}
	if err := onlyVersionTags(get(root, "on")); err != nil {
		return nil, err
	}
	if cond := get(job, "if"); cond == nil || strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(cond.Value, "${{"), "}}")) != publishGuard {
		return nil, fmt.Errorf("job %s: a write token needs if: %s", publishJob, publishGuard)
	}
	if err := needsAllOthers(jobs, get(job, "needs")); err != nil {
		return nil, err
	}
	if get(job, "uses") != nil {
		return nil, fmt.Errorf("job %s: runs its own steps, not a reusable workflow", publishJob)
	}
	for _, step := range get(job, "steps").Content {
		u := get(step, "uses")
		if u != nil && !strings.HasPrefix(u.Value, "actions/checkout@") && !strings.HasPrefix(u.Value, "actions/download-artifact@") {
			return nil, fmt.Errorf("job %s: uses: %s: with a write token only actions/checkout and actions/download-artifact; publish with gh and docker in run:", publishJob, u.Value)
		}
	}
	return readOnly(data, get(job, "permissions"))
}

// onlyVersionTags accepts `on: {push: {tags: [v*...]}}` and nothing more.
func onlyVersionTags(on *yaml.Node) error {
	push := get(on, "push")
	tags := get(push, "tags")
	ok := push != nil && tags != nil && len(on.Content) == 2 && len(push.Content) == 2
	if ok && tags.Kind == yaml.ScalarNode {
		tags = &yaml.Node{Content: []*yaml.Node{tags}}
	}
	for i := 0; ok && i < len(tags.Content); i++ {
		ok = strings.HasPrefix(tags.Content[i].Value, "v")
	}
	if !ok {
		return fmt.Errorf("job %s: a write token is allowed only in a workflow that runs on pushed v* tags alone (on: push: tags: [\"v*\"])", publishJob)
	}
	return nil
}

// needsAllOthers checks that needs lists every other job: nothing is published unless all
// of the release was built and checked.
func needsAllOthers(jobs, needs *yaml.Node) error {
	var want, got []string
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		if n := jobs.Content[i].Value; n != publishJob {
			want = append(want, n)
		}
	}
	if needs != nil && needs.Kind == yaml.ScalarNode {
		got = []string{needs.Value}
	} else if needs != nil {
		for _, n := range needs.Content {
			got = append(got, n.Value)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return fmt.Errorf("job %s: needs %v, want every other job %v: publish only what was all built", publishJob, got, want)
	}
	return nil
}

// readOnly checks perms is exactly contents: write and packages: write, and returns data
// with both turned to read in place.
func readOnly(data []byte, perms *yaml.Node) ([]byte, error) {
	bad := fmt.Errorf("job %s: permissions must be exactly contents: write and packages: write", publishJob)
	if perms == nil || perms.Kind != yaml.MappingNode || len(perms.Content) != 4 {
		return nil, bad
	}
	lines := bytes.SplitAfter(bytes.Clone(data), []byte("\n"))
	for i := 0; i < 4; i += 2 {
		k, v := perms.Content[i], perms.Content[i+1]
		if (k.Value != "contents" && k.Value != "packages") || v.Value != "write" || k.Value == perms.Content[2-i].Value {
			return nil, bad
		}
		line := lines[v.Line-1]
		copy(line[v.Column-1:], "read ") // same length: the lines keep their numbers
	}
	return bytes.Join(lines, nil), nil
}

// The exemption is as narrow as it says: each way of widening it fails the lock, and the
// same job in any other workflow fails too.
func TestOnlyTheReleasePublishJobMayWrite(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), releaseWorkflow))
	require.NoError(t, err)
	release := string(data)
	require.NoError(t, lockCheck(releaseWorkflow, data))
	assert.ErrorContains(t, lockCheck(".github/workflows/publish.yml", data), "permissions: contents: write: want read or none",
		"another workflow with the same job is refused")
	assert.ErrorContains(t, CheckWorkflow(releaseWorkflow, data), "packages: write", "without the exemption the release would fail")

	perms := release[strings.Index(release, "    permissions:\n      contents: write"):strings.Index(release, "    concurrency:")]
	cases := []struct{ name, old, new, want string }{
		{"also on a branch", "  push:\n    tags: [\"v*\"]\n", "  push:\n    branches: [main]\n    tags: [\"v*\"]\n", "pushed v* tags alone"},
		{"also by hand", "  push:\n    tags: [\"v*\"]\n", "  push:\n    tags: [\"v*\"]\n  workflow_dispatch:\n", "pushed v* tags alone"},
		{"any tag", `tags: ["v*"]`, `tags: ["*"]`, "pushed v* tags alone"},
		{"no tag guard", "    if: " + publishGuard + "\n", "", "a write token needs if: " + publishGuard},
		{"before the image is built", "needs: [binaries, image]", "needs: [binaries]", "want every other job [binaries image]"},
		{"a third scope", "      packages: write", "      packages: write\n      pull-requests: write", "exactly contents: write and packages: write"},
		{"write-all", perms, "    permissions: write-all\n", "exactly contents: write"},
		{"on pull requests alone", "  push:\n    tags: [\"v*\"]\n", "  pull_request:\n", "pushed v* tags alone"},
		{"a third party's action", "      - name: Fetch the archives\n", "      - uses: softprops/action-gh-release@c062e08bd532815e2082a85e87e3ef29c3e6d191\n      - name: Fetch the archives\n", "uses: softprops/action-gh-release@"},
		{"an expression in run", `run: bash scripts/publish-release.sh "$TAG" dist images`, `run: bash scripts/publish-release.sh "${{ github.ref_name }}" dist images`, "${{ github.ref_name }} inside run"},
		{"a secret", "GH_TOKEN: ${{ github.token }}", "GH_TOKEN: ${{ secrets.RELEASE_TOKEN }}", "refers to secrets"},
		{"a build job writes", "    name: bot for linux/amd64 and linux/arm64\n", "    name: bot for linux/amd64 and linux/arm64\n    permissions:\n      packages: write\n", "permissions: packages: write: want read or none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, release, c.old, "the case must change the workflow")
			err := lockCheck(releaseWorkflow, []byte(strings.Replace(release, c.old, c.new, 1)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
