package ci

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bwrap's own words when it cannot create its namespaces: without unprivileged user
// namespaces, and under Docker's default seccomp profile.
const (
	noNamespaces = "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces."
	noUIDMap     = "bwrap: setting up uid map: Permission denied"
)

// fakeBin is a PATH holding the tools the judge needs, and a bwrap that cannot create
// namespaces when broken is set (as on hosts without unprivileged user namespaces).
func fakeBin(t *testing.T, broken bool) string {
	if broken {
		return fakeBinSaying(t, noNamespaces)
	}
	return fakeBinSaying(t, "")
}

// fakeBinSaying is fakeBin with a stand-in bwrap that prints says and exits 1; no bwrap
// at all when says is empty.
func fakeBinSaying(t *testing.T, says string) string {
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

func TestNewLocalSandboxChoice(t *testing.T) {
	keepUmask(t)
	_, bwrapErr := exec.LookPath("bwrap")
	cases := []struct {
		name    string
		path    func(t *testing.T) string // "" keeps the real PATH
		sandbox Sandbox
		wantErr string
		warn    string // the one expected warning's reason; "" means no warning
		bwrap   bool   // the judge must end up with bubblewrap
	}{
		{name: "bwrap required but missing", path: func(t *testing.T) string { return fakeBin(t, false) },
			sandbox: SandboxBwrap, wantErr: "sandbox bwrap cannot start: bwrap is not installed. To fix it: install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap"},
		{name: "bwrap required but broken", path: func(t *testing.T) string { return fakeBin(t, true) },
			sandbox: SandboxBwrap, wantErr: "sandbox bwrap cannot start: bwrap cannot create a sandbox here: self-check: sandbox failed to start (exit 1): " + noNamespaces},
		{name: "bwrap required but refused a uid map", path: func(t *testing.T) string { return fakeBinSaying(t, noUIDMap) },
			sandbox: SandboxBwrap, wantErr: noUIDMap + ". To fix it: "},
		{name: "auto without bwrap falls back", path: func(t *testing.T) string { return fakeBin(t, false) },
			sandbox: SandboxAuto, warn: "bwrap is not installed"},
		{name: "auto with broken bwrap falls back", path: func(t *testing.T) string { return fakeBin(t, true) },
			sandbox: SandboxAuto, warn: "No permissions to create new namespace"},
		{name: "none is explicit", sandbox: SandboxNone, warn: "none was chosen"},
		{name: "auto with working bwrap", sandbox: SandboxAuto, bwrap: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.bwrap && bwrapErr != nil {
				t.Skip("bubblewrap is not installed here (CI has it)")
			}
			if c.path != nil {
				t.Setenv("PATH", c.path(t))
			}
			warns := newWarnCounter()
			// The default work dir (not t.TempDir, which is 0700) lets lane uids reach it.
			l, err := NewLocal(LocalOptions{Contract: shellContract(), Sandbox: c.sandbox, Logger: slog.New(warns)})
			if c.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			defer l.Close()
			assert.Equal(t, c.bwrap, l.sb.bwrap != "")
			vs, err := l.Run(context.Background(), 2, []Job{shellJob("a", "exit 0\n"), shellJob("b", "exit 3\n")})
			require.NoError(t, err)
			assert.Equal(t, []Outcome{Pass, Fail}, []Outcome{vs[0].Outcome, vs[1].Outcome})
			got := warns.all()
			if c.warn == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1, "exactly one warning per judge")
			assert.Contains(t, got[0], c.warn)
			assert.Contains(t, got[0], "isolation reduced")
		})
	}
}

// TestLocalFallbackMode checks what the reduced mode still guarantees.
func TestLocalFallbackMode(t *testing.T) {
	keepUmask(t)
	t.Setenv("DIXIT_TEST_SECRET", "hunter2")
	l := newShellJudge(t, func(o *LocalOptions) {
		o.Sandbox = SandboxNone
		o.WorkDir = ""
		o.Contract.Timeout = time.Second
	})
	marker := fmt.Sprintf("7778.%06d", rand.IntN(1000000))
	t.Cleanup(func() { killWithArg(marker) })
	jobs := []Job{
		shellJob("env", "env\ntest -z \"$DIXIT_TEST_SECRET\"\n"),
		shellJob("hang", "setsid sleep "+marker+" &\necho started\nsleep 30\n"),
		shellJob("flood", "yes dixit | head -c 20000000\n"),
		shellJob("count", "n=$(cat count 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > count\n[ $n -lt 2 ]\n"),
	}
	vs, err := l.Run(context.Background(), 3, jobs)
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, Timeout, vs[1].Outcome, vs[1].Output)
	assert.Contains(t, vs[1].Output, "started")
	assert.Equal(t, OverLimit, vs[2].Outcome)
	assert.True(t, strings.HasSuffix(vs[2].Output, "bytes\n"), vs[2].Output)
	assert.Equal(t, Fail, vs[3].Outcome)
	assert.Equal(t, 2, vs[3].Runs)
	if l.sb.root {
		assert.False(t, processWithArg(marker), "as root the lane's uid is swept clean")
	}
}

// TestExecRefusedWithoutSandbox: an agent's command never runs without bubblewrap,
// whether bwrap is missing, cannot start (auto fell back) or none was chosen: there it
// could read the workshop, which holds the tests coders must never see.
func TestExecRefusedWithoutSandbox(t *testing.T) {
	keepUmask(t)
	for _, c := range []struct {
		name    string
		says    string // the stand-in bwrap's error; "" for none chosen with the real one
		sandbox Sandbox
	}{
		{"bwrap cannot create namespaces", noNamespaces, SandboxAuto},
		{"bwrap refused a uid map", noUIDMap, SandboxAuto},
		{"sandbox none", "", SandboxNone},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.says != "" {
				t.Setenv("PATH", fakeBinSaying(t, c.says)+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			l, err := NewLocal(LocalOptions{Contract: shellContract(), Sandbox: c.sandbox, Logger: quietLogger()})
			require.NoError(t, err)
			defer l.Close()
			dir := t.TempDir()
			r, err := l.Exec(context.Background(), dir, "touch ran", time.Minute)
			require.ErrorIs(t, err, ErrNoSandbox)
			assert.Zero(t, r)
			assert.NoFileExists(t, filepath.Join(dir, "ran"), "the command ran")
		})
	}
}

// TestCheckHost is what `bot serve` runs before it takes work: the sandbox it was
// configured with must start, and the App's secret files must be out of the jobs' reach.
func TestCheckHost(t *testing.T) {
	keepUmask(t)
	secrets := func(t *testing.T, mode os.FileMode) map[string]string {
		dir := openDir(t)
		key := filepath.Join(dir, "app.pem")
		require.NoError(t, os.WriteFile(key, []byte("-----BEGIN RSA PRIVATE KEY-----\n"), mode))
		require.NoError(t, os.Chmod(key, mode))
		return map[string]string{"github.private_key_file": key}
	}
	t.Run("a failing bwrap refuses with what to change", func(t *testing.T) {
		t.Setenv("PATH", fakeBinSaying(t, noUIDMap)+string(os.PathListSeparator)+os.Getenv("PATH"))
		_, err := CheckHost(HostCheck{Sandbox: SandboxBwrap, StateDir: t.TempDir(), Logger: quietLogger()})
		var unavailable *UnavailableError
		require.ErrorAs(t, err, &unavailable)
		assert.Contains(t, unavailable.Reason, noUIDMap)
		assert.NotEmpty(t, unavailable.Fix)
	})
	t.Run("auto is not a server's choice", func(t *testing.T) {
		_, err := CheckHost(HostCheck{Sandbox: SandboxAuto, StateDir: t.TempDir()})
		assert.ErrorContains(t, err, `sandbox "auto": want bwrap or none`)
	})
	t.Run("bwrap", func(t *testing.T) {
		if _, err := exec.LookPath("bwrap"); err != nil {
			t.Skip("bubblewrap is not installed here (CI has it)")
		}
		got, err := CheckHost(HostCheck{Sandbox: SandboxBwrap, StateDir: t.TempDir(), Secrets: secrets(t, 0o644), Logger: quietLogger()})
		require.NoError(t, err, "a key outside the system directories is never in a sandbox")
		assert.Equal(t, "bwrap", got)
	})
	t.Run("none as root refuses a key any user may read", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("as root only: without root, jobs run as this user and read its files whatever their modes")
		}
		keys := secrets(t, 0o644)
		_, err := CheckHost(HostCheck{Sandbox: SandboxNone, StateDir: t.TempDir(), Secrets: keys, Logger: quietLogger()})
		assert.ErrorContains(t, err, "the code under test could read github.private_key_file "+keys["github.private_key_file"]+
			": its mode -rw-r--r-- lets any user read it, and tests run as other users; make it readable by its owner only (chmod 600 ")
		got, err := CheckHost(HostCheck{Sandbox: SandboxNone, StateDir: t.TempDir(), Secrets: secrets(t, 0o600), Logger: quietLogger()})
		require.NoError(t, err)
		assert.Contains(t, got, "none: lane uids")
	})
}

// TestSecretExposure: which of the server's files a job could read, in each mode.
func TestSecretExposure(t *testing.T) {
	dir := openDir(t)
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
		sb   sandbox
		path string
		want string // substring of the exposure; "" when the file is out of reach
	}{
		{"bwrap hides what it does not bind", sandbox{bwrap: "bwrap"}, open, ""},
		{"bwrap shows a bound directory to this user", sandbox{bwrap: "bwrap", mounts: []string{dir}}, own, "it lies under " + dir},
		{"bwrap as root shows a bound file only to any user", sandbox{bwrap: "bwrap", root: true, mounts: []string{dir}}, own, ""},
		{"bwrap as root, bound and open", sandbox{bwrap: "bwrap", root: true, mounts: []string{dir}}, open, "lets any user read it"},
		{"none as root: the owner's file", sandbox{root: true}, own, ""},
		{"none as root: a file any user may read", sandbox{root: true}, open, "lets any user read it"},
		{"none as root: such a file in a closed directory", sandbox{root: true}, closed, ""},
		{"none as this user: everything", sandbox{}, own, "tests run as this user"},
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

// openDir is a directory any user can traverse, as a server's secrets directory is.
func openDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "dixit-secrets-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	return dir
}

// TestSealClosesTheServersFilesOnly: without bubblewrap, as root, the judge closes the
// state to other users, but never changes what it does not own alone: the lanes' files,
// the inside of the shared build cache, or a link's target.
func TestSealClosesTheServersFilesOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only: without root the judge seals nothing (jobs run as this user)")
	}
	keepUmask(t)
	dir := openDir(t)
	outside := filepath.Join(openDir(t), "target")
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

// keepUmask gives a test the usual umask and gives the process its own back afterwards:
// a judge without bubblewrap, as root, sets 077 for the rest of the process.
func keepUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}
