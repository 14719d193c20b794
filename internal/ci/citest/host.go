package citest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// bwrap's own words when it cannot create its namespaces: without unprivileged user
// namespaces, and under Docker's default seccomp profile.
const (
	NoNamespaces = "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces."
	NoUIDMap     = "bwrap: setting up uid map: Permission denied"
)

// FakeBin is a PATH directory holding the tools the judge needs and a stand-in bwrap that
// prints says and exits 1, as bwrap does where it cannot create its namespaces; no bwrap
// at all when says is empty.
func FakeBin(t *testing.T, says string) string {
	dir := t.TempDir()
	for _, tool := range []string{"prlimit", "setpriv", "unshare"} {
		p, err := exec.LookPath(tool)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(p, filepath.Join(dir, tool)))
	}
	if says != "" {
		script := fmt.Sprintf("#!/bin/sh\necho '%s' >&2\nexit 1\n", says)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	}
	return dir
}

// OpenDir is a directory any user can traverse, as a server's secrets directory is.
func OpenDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "dixit-secrets-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	return dir
}

// KeepUmask gives a test the usual umask and gives the process its own back afterwards:
// a judge without bubblewrap, as root, sets 077 for the rest of the process.
func KeepUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}
