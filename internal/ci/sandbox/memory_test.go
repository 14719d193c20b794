package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

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

// The processes a dead judge left in its lane's cgroup are its sandboxes, orphaned: the
// next judge ends them with the cgroup.
func TestAStaleLaneCgroupsProcessesAreEnded(t *testing.T) {
	done := exec.Command("true")
	require.NoError(t, done.Run())
	orphan := exec.Command("sleep", "60")
	require.NoError(t, orphan.Start())
	ended := make(chan error, 1)
	go func() { ended <- orphan.Wait() }()
	base := t.TempDir()
	stale := filepath.Join(base, fmt.Sprintf("dixit-ci-111-pid%d-lane0", done.Process.Pid))
	require.NoError(t, os.Mkdir(stale, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "cgroup.procs"), []byte(fmt.Sprintf("%d\n", orphan.Process.Pid)), 0o644))
	sweepCgroups(base)
	select {
	case err := <-ended:
		assert.Error(t, err, "killed, not ended by itself")
	case <-time.After(5 * time.Second):
		orphan.Process.Kill()
		t.Fatal("the process in the dead judge's cgroup is still running")
	}
}
