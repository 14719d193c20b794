package session_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/session"
)

// The demo's progress in a CI log or a pipe: the lines of each round and of the
// comparison, and no control character a log viewer would show as garbage.
func TestDemoProgressIsPlainOffATerminal(t *testing.T) {
	t.Parallel()
	var progress bytes.Buffer
	_, err := session.Run(context.Background(), session.Options{
		Population: demo, StateDir: sharedState, BuildCache: buildCache, RunID: fmt.Sprintf("progress-%d", os.Getpid()),
		Host: session.Terminal{Out: &progress},
	})
	require.NoError(t, err)
	out := progress.String()
	assert.Contains(t, out, "── round 1 · vetted suite: 0 tests")
	assert.Contains(t, out, "ivy-3    → IDEAL")
	assert.Contains(t, out, "inputs, 4 on which the implementations disagree")
	assert.NotContains(t, out, "\r")
	assert.NotContains(t, out, "\x1b")
}
