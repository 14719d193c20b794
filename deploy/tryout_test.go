package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The try-out repository holds exactly the demo's base/ files, committed, and the script
// says what to do next when it cannot push.
func TestTryoutRepoHoldsTheDemosBaseFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := filepath.Join(t.TempDir(), "try")
	cmd := exec.Command("./tryout-repo.sh", "acme/dixit-tryout", dir)
	cmd.Env = append(os.Environ(), "GH=gh-not-installed")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	files, err := exec.Command("git", "-C", dir, "ls-files").Output()
	require.NoError(t, err)
	want, err := os.ReadDir("../examples/semver/base")
	require.NoError(t, err)
	var names []string
	for _, e := range want {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, names, strings.Fields(string(files)))
	assert.Contains(t, string(out), "create the empty private repository acme/dixit-tryout")
	assert.Contains(t, string(out), "examples/semver/spec.md --label dixit")

	again := exec.Command("./tryout-repo.sh", "acme/dixit-tryout", dir)
	out, err = again.CombinedOutput()
	assert.Error(t, err)
	assert.Contains(t, string(out), dir+" exists already")
	out, err = exec.Command("./tryout-repo.sh", "dixit-tryout").CombinedOutput()
	assert.Error(t, err)
	assert.Contains(t, string(out), "usage:")
}
