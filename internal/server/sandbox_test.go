package server

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

// failingBwrap puts a stand-in bwrap first on PATH that fails as Docker's default
// seccomp profile makes the real one fail.
func failingBwrap(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestNewRefusesWhatTheSandboxCannotHold: the server is not built when the configured
// sandbox cannot start, or when a job could read the App's key; the error says what to
// change.
func TestNewRefusesWhatTheSandboxCannotHold(t *testing.T) {
	t.Run("bwrap cannot start", func(t *testing.T) {
		failingBwrap(t)
		_, err := New(config(t, ghtest.NewServer(t)), nil, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "sandbox bwrap cannot start: bwrap cannot create a sandbox here: self-check: sandbox failed to start (exit 1): bwrap: setting up uid map: Permission denied. To fix it: ")
		assert.Contains(t, err.Error(), "Or, knowing that tests then run without any isolation, set sandbox: none in the configuration (DIXIT_SANDBOX=none)")
	})
	t.Run("sandbox none as root with a key any user may read", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("as root only: as this user nothing keeps jobs from the key, and sandbox: none says so")
		}
		umask := syscall.Umask(0o022) // sandbox none as root sets 077 for the process
		t.Cleanup(func() { syscall.Umask(umask) })
		failingBwrap(t)
		cfg := config(t, ghtest.NewServer(t))
		cfg.Sandbox = "none"
		dir, err := os.MkdirTemp("", "dixit-secrets-")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		require.NoError(t, os.Chmod(dir, 0o755))
		key, err := os.ReadFile(cfg.GitHub.PrivateKeyFile)
		require.NoError(t, err)
		cfg.GitHub.PrivateKeyFile = filepath.Join(dir, "app.pem")
		require.NoError(t, os.WriteFile(cfg.GitHub.PrivateKeyFile, key, 0o644))
		require.NoError(t, os.Chmod(cfg.GitHub.PrivateKeyFile, 0o644))

		_, err = New(cfg, nil, nil)
		assert.ErrorContains(t, err, "sandbox none: the code under test could read github.private_key_file "+cfg.GitHub.PrivateKeyFile+
			": its mode -rw-r--r-- lets any user read it, and tests run as other users; make it readable by its owner only")

		require.NoError(t, os.Chmod(cfg.GitHub.PrivateKeyFile, 0o600))
		s, err := New(cfg, nil, nil)
		require.NoError(t, err, "sandbox none, chosen knowingly, starts")
		require.NotNil(t, s)
	})
}
