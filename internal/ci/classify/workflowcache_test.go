package classify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// A runner restores Go's module and build caches and the judge's own build cache before
// it installs bot and classifies, keyed on the toolchain, the bot's version and the
// coders' go.sum, and bot classify builds in the restored judge cache: a matrix job does
// not compile the standard library again.
func TestTheRunnersRestoreGoCaches(t *testing.T) {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(Workflow, &wf))
	steps := wf.Jobs["classify"].Steps
	find := func(what string, match func(name, uses, run string) bool) int {
		for i, s := range steps {
			if match(s.Name, s.Uses, s.Run) {
				return i
			}
		}
		t.Fatalf("the workflow has no step that %s", what)
		return -1
	}
	setup := find("sets up Go", func(_, uses, _ string) bool { return strings.HasPrefix(uses, "actions/setup-go@") })
	restore := find("restores a cache", func(_, uses, _ string) bool { return strings.HasPrefix(uses, "actions/cache@") })
	install := find("installs bot", func(_, _, run string) bool { return strings.Contains(run, "go install") })
	classify := find("classifies", func(_, _, run string) bool { return strings.Contains(run, "bot classify") })
	assert.Less(t, setup, restore, "the key names the toolchain setup-go installed")
	assert.Less(t, restore, install, "bot's modules and build come from the cache")
	assert.Less(t, install, classify)

	cache := steps[restore].With
	key := cache["key"]
	for _, part := range []string{"${{ steps." + steps[setup].ID + ".outputs.go-version }}", "${{ inputs.bot_version }}", "${{ hashFiles('coder/**/go.sum') }}"} {
		assert.Contains(t, key, part, "the key changes with what the cache holds")
	}
	for _, line := range strings.Split(strings.TrimSpace(cache["restore-keys"]), "\n") {
		assert.True(t, strings.HasPrefix(key, line), "restore key %q is a prefix of the key", line)
		assert.Contains(t, line, "outputs.go-version", "another toolchain's cache is never restored")
	}
	paths := cache["path"]
	for _, out := range []string{"gomodcache", "gocache", "judge"} {
		assert.Contains(t, paths, ".outputs."+out+" }}")
	}
	judge := steps[classify]
	assert.Contains(t, judge.Run, `--cache "$JUDGE_CACHE"`)
	assert.Equal(t, "${{ steps.caches.outputs.judge }}", judge.Env["JUDGE_CACHE"], "bot classify builds in the restored judge cache")
}
