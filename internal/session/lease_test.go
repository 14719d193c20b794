package session

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOneProcessDrivesARun(t *testing.T) {
	run := filepath.Join(t.TempDir(), "runs", "r1")
	release, err := acquireLease(run)
	require.NoError(t, err)
	_, err = acquireLease(run)
	assert.ErrorIs(t, err, ErrRunBusy, "a second driver is refused")
	assert.ErrorContains(t, err, "pid ")
	release()
	again, err := acquireLease(run)
	require.NoError(t, err, "the lease is free once its holder lets go")
	again()
}

// TestAReleasedLeaseHeldByAForkedCopyIsWaitedFor: a child forked for another run holds a
// copy of every descriptor until it execs, the lease of a run just ended among them. The
// next driver of that run waits the moment out instead of being refused.
func TestAReleasedLeaseHeldByAForkedCopyIsWaitedFor(t *testing.T) {
	run := filepath.Join(t.TempDir(), "runs", "r1")
	require.NoError(t, os.MkdirAll(filepath.Dir(run), 0o755))
	f, _, err := tryLease(run + ".lease")
	require.NoError(t, err)
	copied, err := syscall.Dup(int(f.Fd())) // what a forked child holds until it execs
	require.NoError(t, err)
	require.NoError(t, f.Truncate(0)) // released, as the release func does
	require.NoError(t, f.Close())
	go func() {
		time.Sleep(200 * time.Millisecond)
		syscall.Close(copied) // the child execs
	}()
	again, err := acquireLease(run)
	require.NoError(t, err, "the lease is taken once the copy is gone")
	again()
}
