package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
)

// TestVetTakesAPatchAsADiff vets the bundled buggy patch twice, as the whole patched tree
// and as a diff against the demo's base: the same tree, so the same failure verdict. The
// verdicts are shared with the demo kill test (or CI's DIXIT_TEST_RESULTS), so only the
// patch's own are judged, once.
func TestVetTakesAPatchAsADiff(t *testing.T) {
	const population = "../../examples/semver"
	dir, diff := "../../examples/semver-patches/string-compare", "../../examples/semver-patches/string-compare.diff"
	fromDir, err := vet.ReadPatch(dir, population, ".")
	require.NoError(t, err)
	fromDiff, err := vet.ReadPatch(diff, population, ".")
	require.NoError(t, err)
	require.Equal(t, fromDir.Hash(), fromDiff.Hash(), "the diff applied to base/ is the patched tree")

	state := t.TempDir()
	cache := cmp.Or(os.Getenv("DIXIT_TEST_RESULTS"), filepath.Join(demoState(buildBot(t)), "cache"))
	require.NoError(t, os.MkdirAll(cache, 0o755))
	require.NoError(t, os.Symlink(cache, filepath.Join(state, "cache")))
	vet := func(patch string) string {
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"vet", "--population", population, "--patch", patch, "--state", state,
			"--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache")}, &out, &errOut)
		require.ErrorIs(t, err, cli.ErrPatchFails, "%s\n%s", out.String(), errOut.String())
		paths, err := filepath.Glob(filepath.Join(state, "runs", "*", "vet-summary.json"))
		require.NoError(t, err)
		require.Len(t, paths, 1, "bot vet writes its summary beside the run's")
		data, err := os.ReadFile(paths[0])
		require.NoError(t, err)
		var s runfile.Summary
		require.NoError(t, json.Unmarshal(data, &s))
		require.NoError(t, os.Remove(paths[0]))
		assert.NoFileExists(t, filepath.Join(filepath.Dir(paths[0]), "report.md"), "and leaves the run's report to the run")
		v := s.Vet
		require.NotNil(t, v)
		return string(v.Conclusion) + ": " + v.Why
	}
	asDir := vet(dir)
	assert.Equal(t, asDir, vet(diff))
	assert.Contains(t, asDir, "failure: The patch fails ")
}

func TestVetSaysWhyADiffIsRefused(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	tests := []struct {
		name, patch, want string
	}{
		{"empty", write("empty.diff", ""), "holds no diff"},
		{"not a diff", write("notes.txt", "LGTM\n"), "holds no diff"},
		{"context mismatch", write("stale.diff", "--- a/semver.go\n+++ b/semver.go\n@@ -4 +4 @@\n-// Compare it\n+// Compare them\n"),
			"does not apply to ../../examples/semver/base: semver.go: hunk 1 (@@ -4,1 +4,1 @@) does not apply at line 4"},
		{"outside the tree", write("escape.diff", "--- /dev/null\n+++ b/../../x\n@@ -0,0 +1 @@\n+x\n"), `"b/../../x": not a path inside the tree`},
		{"neither", filepath.Join(tmp, "no-such-thing"), "no-such-thing: no such file or directory, and repository . has no branch, tag or commit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), []string{"vet", "--population", "../../examples/semver", "--patch", tc.patch,
				"--state", t.TempDir()}, &out, &errOut)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
