package ci

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// TestLocalIsolation proves what a hostile test cannot see or touch. Probes that pass
// when isolation holds are preferred; the network probes must fail to connect.
func TestLocalIsolation(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, nil)
	t.Setenv("DIXIT_TEST_SECRET", "hunter2")

	var accepted atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()

	outside := outsideDir(t)
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("hunter2"), 0o644))
	leak := filepath.Join(outside, "leak", "leak.txt")
	goroot := l.sb.Toolchain().Path[0]
	modcache := l.sb.Toolchain().Env["GOMODCACHE"]

	cases := []judgeCase{
		{name: "control passes", test: goTest("", passTest), want: []Outcome{Pass}},
		{name: "cannot dial a port the host listens on", isolated: true, want: []Outcome{Fail}, output: "dial",
			test: goTest("net time", fmt.Sprintf(`func TestDial(t *testing.T) {
	c, err := net.DialTimeout("tcp", %q, time.Second)
	if err != nil {
		t.Fatalf("dial: %%v", err)
	}
	c.Close()
}
`, ln.Addr().String())),
			check: func(t *testing.T, v Verdict) { assert.Zero(t, accepted.Load(), "the listener saw a connection") }},
		{name: "cannot resolve names", isolated: true, want: []Outcome{Fail}, output: "lookup",
			test: goTest("net", "func TestDNS(t *testing.T) {\n\tif _, err := net.LookupHost(\"example.com\"); err != nil {\n\t\tt.Fatalf(\"lookup: %v\", err)\n\t}\n}\n")},
		{name: "sees only its own tree at a fixed path", isolated: true, want: []Outcome{Pass},
			test: goTest("os path/filepath", fmt.Sprintf(`func TestPeek(t *testing.T) {
	for _, p := range []string{%q, %q, %q, %q} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%%s is visible", p)
		}
	}
	if m, _ := filepath.Glob(%q); len(m) > 0 {
		t.Errorf("other trees are visible: %%v", m)
	}
	if _, err := os.ReadFile("go.mod"); err != nil {
		t.Errorf("own tree unreadable: %%v", err)
	}
	if wd, _ := os.Getwd(); wd != "/sandbox/src" {
		t.Errorf("working directory %%s", wd)
	}
}
`, secret, outside, sharedCache, l.sb.WorkDir(), filepath.Join(l.sb.WorkDir(), "*", "src", "*")))},
		{name: "cannot write outside its tree", want: []Outcome{Pass},
			test: goTest("os path/filepath", fmt.Sprintf(`func TestScribble(t *testing.T) {
	for _, p := range []string{"/etc/dixit-leak", "/usr/dixit-leak", %q, %q} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err == nil {
			t.Errorf("wrote %%s", p)
		}
	}
	os.MkdirAll(filepath.Dir(%[3]q), 0o755) // may succeed in a private view: checked outside
	os.WriteFile(%[3]q, []byte("x"), 0o644)
}
`, filepath.Join(goroot, "dixit-leak"), filepath.Join(modcache, "dixit-leak"), leak)),
			check: func(t *testing.T, v Verdict) {
				if !l.sb.Bubblewrap() && !l.sb.Root() {
					t.Skip("without bubblewrap or root the test runs as this user")
				}
				assert.NoFileExists(t, leak)
			}},
		{name: "the parent's environment is not visible", want: []Outcome{Pass},
			test: goTest("os strings", `func TestEnv(t *testing.T) {
	if os.Getenv("DIXIT_TEST_SECRET") != "" {
		t.Error("secret variable visible")
	}
	for _, p := range []string{"/proc/1/environ", "/proc/self/environ"} {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "hunter2") {
			t.Errorf("secret in %s", p)
		}
	}
}
`)},
		{name: "a private /tmp for every run", isolated: true, want: []Outcome{Pass}, runs: 3,
			test: goTest("os path/filepath", `func TestTmp(t *testing.T) {
	p := filepath.Join(os.TempDir(), "dixit-run-marker")
	if _, err := os.Stat(p); err == nil {
		t.Fatal("a file from an earlier run is still there")
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
`)},
	}
	runBatch(t, l, 3, cases)
	assert.NotContains(t, strings.Join(l.sb.Environ(sandbox.Invocation{Dir: l.sb.WorkDir()}), "\n"), "hunter2")
}

// outsideDir is a directory outside /tmp (which the sandbox replaces anyway), in the
// home directory when possible, so the probes test the bind mounts themselves.
func outsideDir(t *testing.T) string {
	if home, err := os.UserHomeDir(); err == nil {
		dir := filepath.Join(home, fmt.Sprintf(".dixit-ci-test-%d", rand.Int64()))
		if os.Mkdir(dir, 0o755) == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// TestJobsCannotReachTheServer runs, in every mode a server can be in, the tests that
// read what a server holds: the App's key and webhook secret files, the workshop
// written before the judge started and a journal written after, a listing of the state
// directory, the server's environment through /proc, and the host's loopback. Each
// passes only if the harm failed. Without bubblewrap that needs root (jobs then run as
// lane uids); as this user without namespaces nothing holds, which the judge says.
func TestJobsCannotReachTheServer(t *testing.T) {
	modes := []struct {
		name     string
		sandbox  Sandbox
		noNetns  bool // a stand-in unshare that fails, as where the kernel refuses namespaces
		loopback bool // the host's loopback stays reachable: the isolation must say so
	}{
		{name: "bwrap", sandbox: SandboxBwrap},
		{name: "none as root", sandbox: SandboxNone},
		{name: "none as root without namespaces", sandbox: SandboxNone, noNetns: true, loopback: true},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if _, err := exec.LookPath("bwrap"); err != nil && m.sandbox == SandboxBwrap {
				t.Skip("bubblewrap is not installed here (CI has it)")
			}
			if m.sandbox == SandboxNone && os.Geteuid() != 0 {
				t.Skip("without bubblewrap and without root, jobs run as this user: they read its files and reach its network (bot serve refuses unless sandbox: none is explicit)")
			}
			if m.noNetns {
				t.Setenv("PATH", failingUnshare(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			citest.KeepUmask(t)
			srv := newServerFiles(t)
			l, err := NewLocal(LocalOptions{Contract: shellContract(), Sandbox: m.sandbox, Logger: quietLogger(),
				WorkDir: filepath.Join(srv.state, "github", "o_r-1", "tmp"), Private: []string{srv.state}})
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			journal := srv.write(t, filepath.Join(srv.state, "github", "o_r-1", "journal.json"), "journal-after-start")

			probes := []struct{ name, script string }{
				{"its own tree is readable", "cat README\n"},
				{"the App's private key", readProbe(srv.key)},
				{"the webhook secret file", readProbe(srv.secret)},
				{"the workshop", readProbe(srv.workshop)},
				{"a journal written after the judge started", readProbe(journal)},
				{"a listing of the state directory", fmt.Sprintf("if ls %q; then exit 1; fi\n", srv.state)},
				{"the server's environment", fmt.Sprintf("test -z \"$DIXIT_TEST_SECRET\" || exit 1\nif cat /proc/%d/environ; then exit 1; fi\n", os.Getpid())},
				{"the host's loopback", fmt.Sprintf("if bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'; then echo connected; exit 1; fi\n", srv.port)},
			}
			var jobs []Job
			for i, p := range probes {
				jobs = append(jobs, shellJob(fmt.Sprint(i), p.script))
			}
			vs, err := l.Run(context.Background(), 1, jobs)
			require.NoError(t, err)
			for i, p := range probes {
				want := Pass
				if m.loopback && p.name == "the host's loopback" {
					want = Fail
				}
				assert.Equal(t, want, vs[i].Outcome, "%s:\n%s", p.name, vs[i].Output)
				for _, secret := range []string{"BEGIN RSA", "webhook-secret-value", "workshop-tests", "journal-after-start", "hunter2"} {
					assert.NotContains(t, vs[i].Output, secret, p.name)
				}
			}
			if m.loopback {
				assert.Equal(t, "none: lane uids, network reachable", l.sb.Isolation(), "said plainly")
			} else {
				assert.Zero(t, srv.accepted.Load(), "the host's loopback saw a connection")
			}
		})
	}
}

// serverFiles is what a server keeps on its disk, planted for jobs to try to read.
type serverFiles struct {
	state, key, secret, workshop string
	port                         int
	accepted                     *atomic.Int32
}

// newServerFiles plants a state directory holding a workshop (written before any judge
// starts, with the modes of the default umask), key files in a directory any user may
// traverse, a secret in the environment, and a listener on the host's loopback.
func newServerFiles(t *testing.T) serverFiles {
	t.Setenv("DIXIT_TEST_SECRET", "hunter2")
	state, err := os.MkdirTemp("", "dixit-state-")
	require.NoError(t, err)
	t.Cleanup(func() { sandbox.RemoveJobDir(state) })
	require.NoError(t, os.Chmod(state, 0o755))
	secrets := citest.OpenDir(t)
	s := serverFiles{state: state, accepted: &atomic.Int32{}}
	s.workshop = s.write(t, filepath.Join(state, "github", "o_r-1", "workshop.git", "refs", "dixit", "tests"), "workshop-tests")
	s.key = s.write(t, filepath.Join(secrets, "app.pem"), "-----BEGIN RSA PRIVATE KEY-----")
	s.secret = s.write(t, filepath.Join(secrets, "webhook-secret"), "webhook-secret-value")
	require.NoError(t, os.Chmod(s.key, 0o600))
	require.NoError(t, os.Chmod(s.secret, 0o600))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	s.port = ln.Addr().(*net.TCPAddr).Port
	go func() {
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			s.accepted.Add(1)
			c.Close()
		}
	}()
	return s
}

// write creates a file and its directories with the process's umask, as the server does.
func (serverFiles) write(t *testing.T, p, content string) string {
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// readProbe is a test that fails if it can read p.
func readProbe(p string) string { return fmt.Sprintf("if cat %q; then exit 1; fi\n", p) }

// failingUnshare is a PATH directory whose unshare cannot create namespaces.
func failingUnshare(t *testing.T) string {
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unshare"), []byte(script), 0o755))
	return dir
}

// TestTestsCannotWriteTheBuildCache: builds share the Go build cache, so a test that
// wrote into it could change what another coder's build links. With bubblewrap a test
// never sees it; without, as root, a test runs outside the lanes' group that owns it.
func TestTestsCannotWriteTheBuildCache(t *testing.T) {
	for _, sandbox := range []Sandbox{SandboxBwrap, SandboxNone} {
		t.Run(string(sandbox), func(t *testing.T) {
			if _, err := exec.LookPath("bwrap"); err != nil && sandbox == SandboxBwrap {
				t.Skip("bubblewrap is not installed here (CI has it)")
			}
			if sandbox == SandboxNone && os.Geteuid() != 0 {
				t.Skip("without bubblewrap and without root, tests run as this user, who owns the cache")
			}
			citest.KeepUmask(t)
			l := newGoJudge(t, 10*time.Second, func(o *LocalOptions) { o.Sandbox = sandbox })
			poison := filepath.Join(l.sb.CacheDir(), fmt.Sprintf("poison-%d", rand.Int64()))
			t.Cleanup(func() { os.Remove(poison) })
			runBatch(t, l, 1, []judgeCase{{name: "write into the build cache", want: []Outcome{Pass},
				test: goTest("os", fmt.Sprintf(`func TestPoison(t *testing.T) {
	if err := os.WriteFile(%q, []byte("x"), 0o644); err == nil {
		t.Fatal("wrote into the build cache")
	}
}
`, poison)),
				check: func(t *testing.T, v Verdict) { assert.NoFileExists(t, poison) }}})
		})
	}
}
