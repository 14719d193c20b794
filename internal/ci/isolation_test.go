package ci

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	goroot := l.sb.tc.path[0]
	modcache := l.sb.tc.env["GOMODCACHE"]

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
`, secret, outside, sharedCache, l.work, filepath.Join(l.work, "*", "src", "*")))},
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
				if l.sb.bwrap == "" && !l.sb.root {
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
	assert.NotContains(t, strings.Join(l.sb.environ(invocation{dir: l.work}), "\n"), "hunter2")
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
