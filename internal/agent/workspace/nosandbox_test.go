package workspace

import (
	"io"
	"log/slog"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
)

// TestRunCommandRefusedWithoutSandbox: on a judge without bubblewrap (sandbox: none on a
// server) an agent's command never runs; the agent is told so, in words it can act on,
// and the run goes on.
func TestRunCommandRefusedWithoutSandbox(t *testing.T) {
	umask := syscall.Umask(0o022) // as root, a judge without bubblewrap sets 077 for the process
	t.Cleanup(func() { syscall.Umask(umask) })
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: ci.Contract{Path: "t_{id}.sh", Run: "sh t_{id}.sh"}, Parallel: 1,
		Sandbox: ci.SandboxNone, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { judge.Close() })
	w := newWorkspace(t, Options{Runner: judge}, "spec.txt", "x")

	out := call(t, w, toolRun, `{"command": "cat /etc/hostname > leaked.txt"}`)
	assert.Equal(t, ErrorPrefix+"run_command is unavailable on this machine: commands may only run inside a sandbox, "+
		"and none is available here. Keep working with the file tools.", out)
	assert.NoFileExists(t, filepath.Join(w.Dir(), "leaked.txt"))
	assert.Equal(t, "x", call(t, w, toolRead, `{"path": "spec.txt"}`), "the other tools still work")
}
