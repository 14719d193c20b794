package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghreport"
)

// withFailingBwrap is the serve command's environment with a stand-in bwrap first on
// PATH that fails with says, as the real one does where it cannot make namespaces.
func withFailingBwrap(t *testing.T, cmd *exec.Cmd, says string) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho '" + says + "' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	// No /metrics listener: its fixed default port may be taken by another test's server.
	cmd.Env = append(cmd.Env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "DIXIT_METRICS_LISTEN=off")
}

// TestServeRefusesToStartWithoutItsSandbox: `bot serve` with the default sandbox and a
// bwrap that cannot start exits 1 before it listens, saying what to install or change.
func TestServeRefusesToStartWithoutItsSandbox(t *testing.T) {
	w := newServeWorld(t, 0)
	for _, says := range []string{
		"bwrap: setting up uid map: Permission denied",
		"bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.",
	} {
		t.Run(says, func(t *testing.T) {
			addr := freeAddr(t)
			cmd := w.serve("refused", t.TempDir(), addr)
			withFailingBwrap(t, cmd, says)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			err := runFor(t, cmd, time.Minute)
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "serve must exit: %s", stderr.String())
			assert.Equal(t, 1, exit.ExitCode())
			out := stderr.String()
			for _, want := range []string{
				"serve: sandbox bwrap cannot start: bwrap cannot create a sandbox here", says,
				"To fix it: ", "Or, knowing that tests then run without any isolation, set sandbox: none in the configuration (DIXIT_SANDBOX=none)",
			} {
				assert.Contains(t, out, want)
			}
			_, dialErr := net.DialTimeout("tcp", addr, time.Second)
			assert.Error(t, dialErr, "nothing listened")
		})
	}
}

// TestServeWithoutSandboxSaysSo: with sandbox: none chosen knowingly, the same host
// starts, and the run's status comment and check run carry the warning.
func TestServeWithoutSandboxSaysSo(t *testing.T) {
	w := newServeWorld(t, 1)
	addr := freeAddr(t)
	cmd := w.serve("unsandboxed", t.TempDir(), addr)
	withFailingBwrap(t, cmd, "bwrap: setting up uid map: Permission denied")
	cmd.Env = append(cmd.Env, "DIXIT_SANDBOX=none")
	srv := start(t, cmd)
	deliverLabel(t, addr, 1, "d-1")
	status := func() string {
		if c := w.gh.State.Comments("Codertocat", "Hello-World", 1); len(c) > 0 {
			return c[0]
		}
		return ""
	}
	waitFor(t, func() bool { return status() != "" }, 5*time.Minute, "the status comment")
	assert.Contains(t, status(), "\n"+ghreport.NoSandbox+"\n", "the status comment says so")
	var checks int
	for _, r := range w.gh.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/check-runs") {
			checks++
			assert.Contains(t, string(r.Body), "without a sandbox", "the check run says so")
		}
	}
	assert.Equal(t, 1, checks)
	require.NoError(t, syscall.Kill(-srv.Process.Pid, syscall.SIGKILL))
	_ = srv.Wait()
	assert.Contains(t, srv.Stdout.(*bytes.Buffer).String(), `"isolation":"none`, "the log names the isolation")
}

// runFor runs cmd to its end, or kills it after limit.
func runFor(t *testing.T, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		return errors.New("still running")
	}
}
