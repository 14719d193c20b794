package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A judge killed before it removed its lanes' cgroups leaves them behind; the next judge
// removes those whose process is gone, and nothing else.
func TestStaleLaneCgroupsAreSwept(t *testing.T) {
	done := exec.Command("true")
	require.NoError(t, done.Run())
	dead := done.Process.Pid
	base := t.TempDir()
	stale := fmt.Sprintf("dixit-ci-111-pid%d-lane0", dead)
	mine := fmt.Sprintf("dixit-ci-222-pid%d-lane1", os.Getpid())
	for _, d := range []string{stale, mine, "dixit-ci-333-lane0", "someone-else"} {
		require.NoError(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	sweepCgroups(base)
	entries, err := os.ReadDir(base)
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	assert.ElementsMatch(t, []string{mine, "dixit-ci-333-lane0", "someone-else"}, left)
}
