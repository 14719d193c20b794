package ci

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestATestsGoImportsComeFromTheVerifiedModuleCache: a test that imports testify gets
// the module go.sum names, from the cache the prepare filled, whatever the coder's tree
// holds besides: a stub in vendor/ or a go.work that puts a directory of the coder's in
// its place leaves the test failing, next to an honest coder using testify that passes.
// A replace with a stub is the tree's own code, which the judge's own checks through
// testify catch. With bubblewrap and without it.
func TestATestsGoImportsComeFromTheVerifiedModuleCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sandboxed Go jobs")
	}
	contract := cheatContract(t, "go")
	cheats := map[string]coderCheat{}
	for _, c := range loadCoderCheats(t) {
		cheats[c.name] = c
	}
	forges := []struct {
		name string
		want Outcome
	}{{"go_vendor_testify", Fail}, {"go_work_testify", Fail}, {"go_replace_testify", Tampered}}
	vendor := cheats["go_vendor_testify"]
	require.NotEmpty(t, vendor.files, "testdata/hostile/coder_go_vendor_testify.txtar")
	honest := goModule().With("go.mod", vendor.files["go.mod"], "go.sum", vendor.files["go.sum"])
	jobs := []Job{{Coder: "honest", Tree: honest, Test: Test{ID: "honest", Content: vendor.test}},
		// An honest tree that vendors its modules builds from the cache all the same.
		{Coder: "vendored", Tree: honest.With("vendor/modules.txt", vendor.files["vendor/modules.txt"]), Test: Test{ID: "vendored", Content: vendor.test}}}
	for _, f := range forges {
		c := cheats[f.name]
		require.NotEmpty(t, c.files, f.name)
		tree := goModule().With()
		for name, content := range c.files {
			tree[name] = content
		}
		jobs = append(jobs, Job{Coder: f.name, Tree: tree, Test: Test{ID: f.name, Content: c.test}})
	}
	for _, sb := range []Sandbox{SandboxAuto, SandboxNone} {
		t.Run(string(sb), func(t *testing.T) {
			l := depsJudgeIn(t, contract, sharedCache, sb)
			if sb == SandboxAuto {
				requireBwrap(t, l)
			}
			vs, err := l.Run(context.Background(), 2, jobs)
			require.NoError(t, err)
			assert.Equal(t, Pass, vs[0].Outcome, "an honest coder using testify: %s", vs[0].Output)
			assert.Equal(t, Pass, vs[1].Outcome, "an honest coder that vendors testify: %s", vs[1].Output)
			for i, f := range forges {
				assert.Equal(t, f.want, vs[i+2].Outcome, "%s: %s", f.name, vs[i+2].Output)
			}
		})
	}
}
