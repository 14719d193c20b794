// Package testuser runs a test once more as an unprivileged user. Root ignores file
// modes, so a test of what a chmod can break must also run as a user they bind.
package testuser

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Nobody is the uid and gid the test runs as the second time.
const Nobody = 65534

// envChild marks the subprocess, so that it runs the test's body instead of forking again.
const envChild = "DIXIT_TEST_AS_NOBODY"

// AlsoAsNobody, called first in a test, runs that test again as uid and gid Nobody in a
// subprocess when the process is root, and fails t if it fails or skips there; the
// caller then goes on and runs its body as root too. In that subprocess, and in a
// process that is not root, it does nothing: the body runs once, unprivileged. The
// subprocess runs in a scratch directory of its own, so the test must not read files
// relative to its package.
func AlsoAsNobody(t *testing.T) {
	t.Helper()
	if os.Getenv(envChild) != "" {
		if os.Geteuid() == 0 {
			t.Fatal("the unprivileged run is still root")
		}
		return
	}
	if os.Geteuid() != 0 {
		return
	}
	dir := scratch(t)
	bin := filepath.Join(dir, "test.bin")
	data, err := os.ReadFile(os.Args[0])
	if err == nil {
		err = os.WriteFile(bin, data, 0o755)
	}
	if err == nil {
		// Not left to the umask: a judge run earlier in the process, as root without
		// bubblewrap, may have set it to 077, and uid 65534 could not execute the copy.
		err = os.Chmod(bin, 0o755)
	}
	if err != nil {
		t.Fatalf("copy the test binary for uid %d: %v", Nobody, err)
	}
	args := []string{"-test.run=" + pattern(t.Name()), "-test.count=1", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, envChild + "=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", Nobody, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("as uid %d the test did not pass (skipped?):\n%s", Nobody, out)
	}
}

// scratch is a directory owned by Nobody, reachable by it, removed after the test.
func scratch(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dixit-nobody-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err == nil {
		err = os.Chown(dir, Nobody, Nobody)
	}
	if err != nil {
		t.Fatalf("scratch directory for uid %d: %v", Nobody, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) }) // as root: whatever modes the test left
	return dir
}

// pattern matches exactly the test (or subtest) named, level by level.
func pattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
