package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
)

// TestCheckHost is what `bot serve` runs before it takes work: the sandbox it was
// configured with must start, and the App's secret files must be out of the jobs' reach.
func TestCheckHost(t *testing.T) {
	citest.KeepUmask(t)
	secrets := func(t *testing.T, mode os.FileMode) map[string]string {
		dir := citest.OpenDir(t)
		key := filepath.Join(dir, "app.pem")
		require.NoError(t, os.WriteFile(key, []byte("-----BEGIN RSA PRIVATE KEY-----\n"), mode))
		require.NoError(t, os.Chmod(key, mode))
		return map[string]string{"github.private_key_file": key}
	}
	t.Run("a failing bwrap refuses with what to change", func(t *testing.T) {
		t.Setenv("PATH", citest.FakeBin(t, citest.NoUIDMap)+string(os.PathListSeparator)+os.Getenv("PATH"))
		_, err := CheckHost(HostCheck{Mode: Bwrap, StateDir: t.TempDir(), Logger: citest.QuietLogger()})
		var unavailable *UnavailableError
		require.ErrorAs(t, err, &unavailable)
		assert.Contains(t, unavailable.Reason, citest.NoUIDMap)
		assert.NotEmpty(t, unavailable.Fix)
	})
	t.Run("auto is not a server's choice", func(t *testing.T) {
		_, err := CheckHost(HostCheck{Mode: Auto, StateDir: t.TempDir()})
		assert.ErrorContains(t, err, `sandbox "auto": want bwrap or none`)
	})
	t.Run("bwrap", func(t *testing.T) {
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Skip("bubblewrap is not installed here (CI has it)")
		}
		got, err := CheckHost(HostCheck{Mode: Bwrap, StateDir: t.TempDir(), Secrets: secrets(t, 0o644), Logger: citest.QuietLogger()})
		require.NoError(t, err, "a key outside the system directories is never in a sandbox")
		assert.Equal(t, "bwrap", got)
	})
	t.Run("none as root refuses a key any user may read", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("as root only: without root, jobs run as this user and read its files whatever their modes")
		}
		keys := secrets(t, 0o644)
		_, err := CheckHost(HostCheck{Mode: None, StateDir: t.TempDir(), Secrets: keys, Logger: citest.QuietLogger()})
		assert.ErrorContains(t, err, "the code under test could read github.private_key_file "+keys["github.private_key_file"]+
			": its mode -rw-r--r-- lets any user read it, and tests run as other users; make it readable by its owner only (chmod 600 ")
		got, err := CheckHost(HostCheck{Mode: None, StateDir: t.TempDir(), Secrets: secrets(t, 0o600), Logger: citest.QuietLogger()})
		require.NoError(t, err)
		assert.Contains(t, got, "none: lane uids")
	})
}

// TestSecretExposure: which of the server's files a job could read, in each mode.
func TestSecretExposure(t *testing.T) {
	dir := citest.OpenDir(t)
	open := filepath.Join(dir, "open.pem")
	own := filepath.Join(dir, "own.pem")
	closed := filepath.Join(dir, "closed", "open.pem")
	require.NoError(t, os.Mkdir(filepath.Dir(closed), 0o700))
	for p, mode := range map[string]os.FileMode{open: 0o644, own: 0o600, closed: 0o644} {
		require.NoError(t, os.WriteFile(p, nil, mode))
		require.NoError(t, os.Chmod(p, mode)) // whatever the umask
	}
	cases := []struct {
		name string
		sb   Sandbox
		path string
		want string // substring of the exposure; "" when the file is out of reach
	}{
		{"bwrap hides what it does not bind", Sandbox{bwrap: "bwrap"}, open, ""},
		{"bwrap shows a bound directory to this user", Sandbox{bwrap: "bwrap", mounts: []string{dir}}, own, "it lies under " + dir},
		{"bwrap as root shows a bound file only to any user", Sandbox{bwrap: "bwrap", root: true, mounts: []string{dir}}, own, ""},
		{"bwrap as root, bound and open", Sandbox{bwrap: "bwrap", root: true, mounts: []string{dir}}, open, "lets any user read it"},
		{"none as root: the owner's file", Sandbox{root: true}, own, ""},
		{"none as root: a file any user may read", Sandbox{root: true}, open, "lets any user read it"},
		{"none as root: such a file in a closed directory", Sandbox{root: true}, closed, ""},
		{"none as this user: everything", Sandbox{}, own, "tests run as this user"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.sb.exposes(c.path)
			require.NoError(t, err)
			if c.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, c.want)
		})
	}
}

// TestSealClosesTheServersFilesOnly: without bubblewrap, as root, the judge closes the
// state to other users, but never changes what it does not own alone: the lanes' files,
// the inside of the shared build cache, or a link's target.
func TestSealClosesTheServersFilesOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only: without root the judge seals nothing (jobs run as this user)")
	}
	citest.KeepUmask(t)
	dir := citest.OpenDir(t)
	outside := filepath.Join(citest.OpenDir(t), "target")
	modes := map[string]os.FileMode{
		"workshop.git/HEAD": 0o644, "report.md": 0o666, "cache/go-build/ab/x": 0o664, "job/src/own": 0o644, "run.sh": 0o755,
	}
	for p, mode := range modes {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), nil, mode))
		require.NoError(t, os.Chmod(filepath.Join(dir, p), mode))
	}
	require.NoError(t, os.Chmod(filepath.Join(dir, "cache"), 0o775|os.ModeSetgid))
	require.NoError(t, os.Lchown(filepath.Join(dir, "job", "src", "own"), 61999, 61999))
	require.NoError(t, os.WriteFile(outside, nil, 0o644))
	require.NoError(t, os.Chmod(outside, 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))

	require.NoError(t, seal(dir))
	for p, want := range map[string]os.FileMode{
		".": 0o751, "workshop.git": 0o751, "workshop.git/HEAD": 0o640, "report.md": 0o660, "run.sh": 0o750,
		"cache": 0o771 | os.ModeSetgid, "cache/go-build/ab/x": 0o664, "job/src/own": 0o644,
	} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		require.NoError(t, err)
		assert.Equal(t, want, fi.Mode()&(os.ModePerm|os.ModeSetgid), p)
	}
	fi, err := os.Stat(outside)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "a link's target is left alone")
}
