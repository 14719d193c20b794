package ci

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/agentexec"
)

// execDir is an agent's workspace holding a small Go module with a passing test.
func execDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, goModule().With("x_test.go", string(goTest("", passTest))).WriteTo(dir))
	return dir
}

// TestExecCommands runs agent commands in one workspace, so the standard library is
// compiled into its private cache once.
func TestExecCommands(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, nil)
	dir := execDir(t)
	ctx := context.Background()
	cases := []struct {
		name    string
		command string
		timeout time.Duration
		check   func(t *testing.T, r agentexec.Result)
	}{
		{name: "go build and go test write into the workspace", command: "go build ./... && go test -count=1 ./... && go vet ./... && echo done > made.txt",
			timeout: 3 * time.Minute,
			check: func(t *testing.T, r agentexec.Result) {
				assert.Equal(t, 0, r.Exit, r.Output)
				assert.Contains(t, r.Output, "ok")
				assert.FileExists(t, filepath.Join(dir, "made.txt"))
			}},
		{name: "the build cache is reused", command: "go test -count=1 ./...",
			check: func(t *testing.T, r agentexec.Result) {
				assert.Equal(t, 0, r.Exit, r.Output)
				assert.Less(t, r.Seconds, 30.0)
			}},
		{name: "non-zero exit is a result", command: "echo to stderr >&2; exit 3",
			check: func(t *testing.T, r agentexec.Result) {
				assert.Equal(t, 3, r.Exit)
				assert.Equal(t, "to stderr\n", r.Output)
				assert.False(t, r.TimedOut)
			}},
		{name: "timeout kills and says so", command: "echo started; sleep 60", timeout: time.Second,
			check: func(t *testing.T, r agentexec.Result) {
				assert.True(t, r.TimedOut)
				assert.Equal(t, -1, r.Exit)
				assert.Contains(t, r.Output, "started")
				assert.Equal(t, "timed out after 1s", r.Note)
				assert.Less(t, r.Seconds, 10.0)
			}},
		{name: "output keeps its tail", command: "head -c 100000 /dev/zero | tr '\\0' a; echo; echo the end",
			check: func(t *testing.T, r agentexec.Result) {
				assert.Equal(t, 0, r.Exit)
				assert.LessOrEqual(t, len(r.Output), agentexec.MaxOutput)
				assert.Greater(t, len(r.Output), MaxOutput)
				assert.Contains(t, r.Output, "the end")
			}},
		{name: "invalid UTF-8 is replaced", command: `printf 'a\377b'`,
			check: func(t *testing.T, r agentexec.Result) { assert.Equal(t, "a\uFFFDb", r.Output) }},
		{name: "works in /sandbox/src with a private HOME", command: `pwd; test -w "$HOME" && echo home ok`,
			check: func(t *testing.T, r agentexec.Result) {
				if !l.sb.Bubblewrap() {
					t.Skip("no bubblewrap: the command runs in the host directory")
				}
				assert.Equal(t, "/sandbox/src\nhome ok\n", r.Output)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := l.Exec(ctx, dir, c.command, c.timeout)
			require.NoError(t, err)
			c.check(t, r)
			assertOwnedByMe(t, dir)
		})
	}
}

// TestExecIsolation: an agent's command has no network and sees nothing of the host
// beyond the system and its own directory.
func TestExecIsolation(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, nil)
	requireBwrap(t, l)
	dir := execDir(t)
	ctx := context.Background()

	t.Run("no network", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("bash is needed for its /dev/tcp probe")
		}
		var accepted atomic.Int32
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { ln.Close() })
		go func() {
			for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
				accepted.Add(1)
				c.Close()
			}
		}()
		port := ln.Addr().(*net.TCPAddr).Port
		r, err := l.Exec(ctx, dir, fmt.Sprintf("%s -c 'exec 3<>/dev/tcp/127.0.0.1/%d' && echo connected", bash, port), 0)
		require.NoError(t, err)
		assert.NotEqual(t, 0, r.Exit, r.Output)
		assert.NotContains(t, r.Output, "connected")
		assert.Zero(t, accepted.Load(), "the listener saw a connection")
	})

	t.Run("files outside the directory are invisible and unwritable", func(t *testing.T) {
		outside := outsideDir(t)
		secret := filepath.Join(outside, "secret.txt")
		require.NoError(t, os.WriteFile(secret, []byte("hunter2"), 0o644))
		r, err := l.Exec(ctx, dir, fmt.Sprintf("cat %q; ls %q; echo x > %q/leak; ls %q", secret, outside, outside, l.sb.CacheDir()), 0)
		require.NoError(t, err)
		assert.NotContains(t, r.Output, "hunter2")
		assert.NoFileExists(t, filepath.Join(outside, "leak"))
		assert.NotEqual(t, 0, r.Exit)
	})
}

// TestExecOwnership: as root the command runs as a lane uid; afterwards the tree is the
// caller's again, pre-existing owners are kept, and nothing setuid is left behind.
func TestExecOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("lending a tree to lane uids happens only when the judge runs as root")
	}
	l := newGoJudge(t, 10*time.Second, nil)
	dir := t.TempDir()
	other := filepath.Join(dir, "theirs.txt")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	require.NoError(t, os.Chown(other, 4242, 4343))
	outside := filepath.Join(t.TempDir(), "linked-outside")
	require.NoError(t, os.WriteFile(outside, []byte("original"), 0o644))
	require.NoError(t, os.Link(outside, filepath.Join(dir, "hardlink")))

	r, err := l.Exec(context.Background(), dir, `id -u; mkdir -p sub/deep && echo hi > sub/deep/new.txt &&
		cp /bin/true suid && chmod 4755 suid && chmod 0 sub/deep/new.txt && echo y >> theirs.txt;
		echo tampered > hardlink`, 0)
	require.NoError(t, err)
	assert.False(t, strings.HasPrefix(r.Output, "0\n"), "the command ran as root: %s", r.Output)

	assertOwnedBy(t, other, 4242, 4343)
	fi, err := os.Stat(filepath.Join(dir, "suid"))
	require.NoError(t, err)
	assert.Zero(t, fi.Mode()&(os.ModeSetuid|os.ModeSetgid), "setuid bit survived")
	b, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "original", string(b), "wrote through a hard link to a file outside")
	b, err = os.ReadFile(other)
	require.NoError(t, err)
	assert.Equal(t, "xy\n", string(b), "a lent file was not writable")
	for _, p := range []string{"sub", "sub/deep", "sub/deep/new.txt", "suid", "hardlink", "."} {
		assertOwnedBy(t, filepath.Join(dir, p), os.Getuid(), os.Getgid())
	}
	require.NoError(t, os.RemoveAll(dir))
}

// TestExecSerializesOneDir: two commands on one directory never overlap.
func TestExecSerializesOneDir(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, func(o *LocalOptions) { o.Parallel = 2 })
	dir := t.TempDir()
	var wg sync.WaitGroup
	results := make([]agentexec.Result, 2)
	for i := range results {
		wg.Go(func() {
			r, err := l.Exec(context.Background(), dir, "mkdir busy && sleep 0.3 && rmdir busy", 0)
			assert.NoError(t, err)
			results[i] = r
		})
	}
	wg.Wait()
	for _, r := range results {
		assert.Equal(t, 0, r.Exit, r.Output)
	}
}

func TestExecJudgeErrors(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, nil)
	_, err := l.Exec(context.Background(), filepath.Join(t.TempDir(), "missing"), "true", 0)
	assert.Error(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Exec(ctx, t.TempDir(), "true", 0)
	assert.ErrorIs(t, err, context.Canceled)
}

// assertOwnedByMe checks every path under dir belongs to the calling process.
func assertOwnedByMe(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			assertOwnedBy(t, p, os.Getuid(), os.Getgid())
		}
		return err
	}))
}

func assertOwnedBy(t *testing.T, p string, uid, gid int) {
	t.Helper()
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	assert.Equal(t, [2]int{uid, gid}, [2]int{int(st.Uid), int(st.Gid)}, "owner of %s", p)
}

func TestExecOverLimit(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, func(o *LocalOptions) { o.Limits.Output = 64 << 10 })
	r, err := l.Exec(context.Background(), t.TempDir(), "yes flood", 5*time.Second)
	require.NoError(t, err)
	assert.True(t, r.OverLimit)
	assert.False(t, r.TimedOut)
	assert.Equal(t, -1, r.Exit)
	assert.Equal(t, "output exceeded 65536 bytes", r.Note)
	assert.Contains(t, r.Output, "flood\n")
}

// TestExecCachesStartFromTheSeed: every agent's private build cache starts from the
// standard library the judge compiled once (a fresh directory's cache is not empty before
// its first build), and no agent can change what the next one starts from.
func TestExecCachesStartFromTheSeed(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, nil)
	requireBwrap(t, l)
	ctx := context.Background()
	count := "find $GOCACHE -type f | wc -l"

	// A hostile agent, before any build of its own, rewrites and deletes every file it
	// finds in its cache: all of them are the seed's.
	first := execDir(t)
	r, err := l.Exec(ctx, first, count+`; for f in $(find $GOCACHE -type f); do chmod u+w "$f" 2>/dev/null; echo poison 2>/dev/null >"$f" && echo "wrote $f"; done; find $GOCACHE -type f -delete`, time.Minute)
	require.NoError(t, err)
	seeded := strings.Fields(r.Output)[0]
	assert.NotEqual(t, "0", seeded, "a new directory's cache holds the seed before it builds:\n%s", r.Output)
	assert.NotContains(t, r.Output, "wrote", "a seeded entry is read-only to the agent")
	r, err = l.Exec(ctx, first, "go test -count=1 ./...", 3*time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Exit, "without the seed it compiles what it needs:\n%s", r.Output)

	second := execDir(t)
	r, err = l.Exec(ctx, second, count+"; go test -count=1 ./...", 3*time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Exit, r.Output)
	assert.Equal(t, seeded, strings.Fields(r.Output)[0], "the next directory starts from the whole seed:\n%s", r.Output)
	assert.Contains(t, r.Output, "ok ")
}
