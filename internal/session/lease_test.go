package session

import (
	"path/filepath"
	"testing"

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
