package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFirstRunWithoutBubblewrap is a new user's first run on a machine without bubblewrap,
// not as root: `bot demo` from the checkout, with the default (relative) state directory.
// It must end as the demo does with bubblewrap, printing one warning about isolation; then
// `--sandbox none` must work the same way.
func TestFirstRunWithoutBubblewrap(t *testing.T) {
	t.Parallel() // the long tests of this package run side by side, after the others
	if testing.Short() {
		t.Skip("runs the demo twice in a subprocess")
	}
	home := worldDir(t)
	bin := filepath.Join(home, "bot")
	data, err := os.ReadFile(buildBot(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	// A checkout of the example, so that the demo finds it from the working directory.
	require.NoError(t, os.CopyFS(filepath.Join(home, "examples", "semver"), os.DirFS("../../examples/semver")))
	path := pathWithout(t, filepath.Join(home, "bin"), "bwrap")
	require.NoError(t, os.MkdirAll(filepath.Join(home, "tmp"), 0o777))

	demo := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"demo"}, args...)...)
		cmd.Dir = home
		cmd.Env = []string{"PATH=" + path, "HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp"), "USER=newcomer"}
		if os.Geteuid() == 0 {
			// An unprivileged user, as on most developer machines.
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			chownTree(t, home, 65534)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := demo()
	require.NoError(t, err, out)
	assert.Contains(t, out, "Outcome: TESTERS_EXHAUSTED — no tester found a new test that separates the coders in round 4")
	assert.Contains(t, out, "4 rounds, 3 vetted tests")
	assert.Equal(t, 1, strings.Count(out, "isolation reduced"), "one warning about isolation:\n%s", out)
	assert.Contains(t, out, "bwrap is not installed")
	assert.FileExists(t, filepath.Join(home, ".dixit", "runs", runOf(t, out), "report.md"), "the state directory is relative to where bot runs")

	out, err = demo("--sandbox", "none", "--fresh")
	require.NoError(t, err, out)
	assert.Contains(t, out, "Outcome: TESTERS_EXHAUSTED")
	assert.Contains(t, out, "4 rounds, 3 vetted tests")
	assert.Equal(t, 1, strings.Count(out, "isolation reduced"), out)
	assert.Contains(t, out, "sandbox none was chosen")
}

// worldDir is a scratch directory any user can use (t.TempDir's parents are private).
func worldDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dixit-firstrun-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o777))
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// pathWithout makes dir a directory of links to every program on PATH but the ones
// named, and returns it as a PATH: the machine as if those were never installed.
func pathWithout(t *testing.T, dir string, hidden ...string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if slices.Contains(hidden, name) {
				continue
			}
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				continue // an earlier PATH entry wins, as in a shell
			}
			abs, err := filepath.Abs(filepath.Join(d, name))
			require.NoError(t, err)
			require.NoError(t, os.Symlink(abs, filepath.Join(dir, name)))
		}
	}
	_, err := exec.LookPath(filepath.Join(dir, hidden[0]))
	require.Error(t, err, "%s is hidden", hidden[0])
	return dir
}

// chownTree gives the tree at dir to uid, so the unprivileged run can write its state.
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	}))
}

// runOf reads the run id from the demo's "Report:" line.
func runOf(t *testing.T, out string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "Report:  "); ok {
			return filepath.Base(filepath.Dir(strings.Fields(rest)[0]))
		}
	}
	t.Fatalf("no Report: line in\n%s", out)
	return ""
}
