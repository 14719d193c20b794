package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClip(t *testing.T) {
	euro := "€" // three bytes
	cases := []struct {
		name string
		out  []byte
		note string
		max  int
		want string
	}{
		{name: "short output is kept", out: []byte("hello"), max: 100, want: "hello"},
		{name: "note is appended", out: []byte("hello"), note: "exit status 1", max: 100, want: "hello\n[dixit] exit status 1\n"},
		{name: "tail is kept", out: []byte("0123456789"), max: 4, want: "6789"},
		{name: "no half character at the cut", out: []byte(strings.Repeat(euro, 4)), max: 7, want: euro + euro},
		{name: "invalid bytes are replaced", out: []byte{'a', 0xff, 'b'}, max: 100, want: "a\uFFFDb"},
		{name: "note wins over output", out: []byte("0123456789"), note: "n", max: 12, want: "9\n[dixit] n\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Clip(c.out, c.note, c.max)
			assert.Equal(t, c.want, got)
			assert.True(t, utf8.ValidString(got))
			assert.LessOrEqual(t, len(got), c.max)
		})
	}
}

func TestTail(t *testing.T) {
	tl := newTail(8)
	for i := 0; i < 100; i++ {
		tl.Write([]byte("abc"))
	}
	tl.Write([]byte("0123456789xyz"))
	assert.Equal(t, "56789xyz", string(tl.Bytes()))
}

func TestRunOutput(t *testing.T) {
	const m = "\x1eMARK\x1e"
	cases := []struct {
		name       string
		chunks     []string
		limit      int64
		last, cur  string
		overFlowed bool
	}{
		{name: "two runs", chunks: []string{"run 1\n" + m + "run 2\n" + m}, limit: 100, last: "run 2\n"},
		{name: "marker split across reads", chunks: []string{"one" + m[:3], m[3:] + "two" + m[:1], m[1:]}, limit: 100, last: "two"},
		{name: "killed mid-run", chunks: []string{"ok" + m + "partial"}, limit: 100, last: "ok", cur: "partial"},
		{name: "limit is per run", chunks: []string{"12345678" + m + "12345678" + m}, limit: 10, last: "12345678"},
		{name: "over the limit", chunks: []string{"12345" + m + "123456789012"}, limit: 10, last: "12345", cur: "123456789012", overFlowed: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			over := false
			o := newRunOutput(m, c.limit, MaxOutput, func() { over = true })
			for _, ch := range c.chunks {
				o.write([]byte(ch))
			}
			o.pump(strings.NewReader("")) // EOF flushes what might have been a marker
			assert.Equal(t, c.last, string(o.last))
			assert.Equal(t, c.cur, string(o.cur.Bytes()))
			assert.Equal(t, c.overFlowed, over)
		})
	}
}

// A run stopped for its report may be many runs behind the last one on a busy
// machine: its own output must still be there, and forged markers keep nothing.
func TestRunOutputKeepsEveryRequestedRun(t *testing.T) {
	const m = "\x1eMARK\x1e"
	o := newRunOutput(m, 100, MaxOutput, func() {})
	o.runs = 20
	for i := 1; i <= 25; i++ {
		o.write([]byte(fmt.Sprintf("run %d", i) + m))
	}
	assert.Equal(t, "run 2", string(o.byRun[2]), "an early run's output is kept after 23 more")
	assert.Equal(t, "run 20", string(o.byRun[20]))
	assert.Len(t, o.byRun, 20, "markers past the requested runs are forged: nothing kept for them")
}

// A run counts as ended only once its CPU time is known: a caller stopping the sandbox
// at that end must tell a run the CPU limit killed from a plain failure.
func TestARunEndsWithItsCPUTime(t *testing.T) {
	p := newProgress()
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() { p.read(r); close(done) }()
	for _, line := range []string{"x", "S 1", "E 1 137"} {
		fmt.Fprintln(w, line)
		<-p.notify // read and counted
	}
	assert.Equal(t, 1, p.snapshot().starts)
	assert.Zero(t, p.snapshot().ends, "the run's times have not arrived")
	fmt.Fprint(w, "0m0.01s 0m0.00s\n0m1.50s 0m0.25s\n")
	w.Close()
	<-done
	got := p.snapshot()
	assert.Equal(t, 1, got.ends)
	assert.Equal(t, 137, got.status)
	assert.Equal(t, 1750*time.Millisecond, got.cpu)
}

func TestChildTimes(t *testing.T) {
	assert.Equal(t, 1500*time.Millisecond, childTimes("0m1.25s 0m0.25s"))
	assert.Equal(t, 61*time.Second, childTimes("1m1.000000s 0m0.000000s"))
	assert.Zero(t, childTimes(""))
}

func TestClaimUIDs(t *testing.T) {
	dir := t.TempDir()
	a, locksA, err := claimUIDs(dir, 62000, 2)
	require.NoError(t, err)
	b, locksB, err := claimUIDs(dir, 62000, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{62001, 62002}, a, "62000 is the lanes' group, never a lane")
	assert.Equal(t, []int{62003, 62004}, b, "a second judge gets other lanes")
	releaseUIDs(locksA)
	c, locksC, err := claimUIDs(dir, 62000, 1)
	require.NoError(t, err)
	assert.Equal(t, []int{62001}, c, "released lanes are reused")
	releaseUIDs(locksB)
	releaseUIDs(locksC)
	_, _, err = claimUIDs(dir, 62000, uidSpan+1)
	assert.Error(t, err)
}

func TestToolCachesGetAWritablePlaceOnlyInsideTheirBind(t *testing.T) {
	deps := t.TempDir()
	for _, d := range []string{"node_modules/.vite-temp", "other/.cache"} {
		require.NoError(t, os.MkdirAll(filepath.Join(deps, d), 0o755))
	}
	s := &Sandbox{bwrap: "bwrap", tc: Toolchain{DepsBinds: []string{"node_modules"},
		DepsScratch: []string{"node_modules/.vite-temp", "node_modules/.vite", "other/.cache"}}}
	args := strings.Join(s.treeArgs(Invocation{Dir: "/job", Deps: deps}), " ")
	assert.Contains(t, args, "--ro-bind "+deps+"/node_modules /sandbox/src/node_modules --perms 1777 --tmpfs /sandbox/src/node_modules/.vite-temp",
		"the private place comes after the read-only dependencies it sits in")
	assert.NotContains(t, args, ".vite ", "a directory the prepare did not make is not mounted")
	assert.NotContains(t, args, "other/.cache", "nor one outside what is bound into the tree")

	s.tc.DepsBinds = nil // an agent's command: nothing is mounted into its directory
	assert.NotContains(t, strings.Join(s.treeArgs(Invocation{Dir: "/job", Deps: deps}), " "), "--tmpfs")
}

func TestAPrepareFindsItsToolsFirstOnPath(t *testing.T) {
	s := &Sandbox{bwrap: "bwrap"}
	inv := Invocation{Dir: "/job", Prepare: true, Deps: "/cache/deps/k", Tools: []string{"/cache/deps/tool-a"}}
	assert.Contains(t, s.Environ(inv), "PATH=/sandbox/tools/0/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin")
	args, _ := s.mountArgs(inv)
	assert.Contains(t, strings.Join(args, " "), "--ro-bind /cache/deps/tool-a /sandbox/tools/0")
}

func TestJITRuntimesAreToldWhenTheAddressSpaceIsBounded(t *testing.T) {
	s := &Sandbox{limits: Limits{Memory: 2 << 30}, tc: Toolchain{BoundedEnv: map[string]string{"NODE_OPTIONS": "--disable-wasm-trap-handler"}}}
	assert.Contains(t, s.Environ(Invocation{Dir: "/job"}), "NODE_OPTIONS=--disable-wasm-trap-handler")
	s.limits.Memory = 0
	assert.NotContains(t, s.Environ(Invocation{Dir: "/job"}), "NODE_OPTIONS=--disable-wasm-trap-handler", "nothing bounds it")
}

// A job whose first run does twice the work (the judge's twins) gets twice the CPU for
// its processes, as it gets twice the first run's timeout.
func TestAFirstRunWithTwinsGetsTheCPUToMatch(t *testing.T) {
	s := &Sandbox{limits: Limits{CPU: 60 * time.Second}}
	plain := Invocation{Runs: 20, Timeout: 30 * time.Second}
	assert.Equal(t, 60*time.Second, s.invLimits(plain).CPU)
	twins := plain
	twins.FirstRun = 60 * time.Second
	assert.Equal(t, 120*time.Second, s.invLimits(twins).CPU)
}
