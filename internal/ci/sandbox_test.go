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
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBin is a PATH holding the tools the judge needs, and a bwrap that cannot create
// namespaces when broken is set (as on hosts without unprivileged user namespaces).
func fakeBin(t *testing.T, broken bool) string {
	dir := t.TempDir()
	for _, tool := range []string{"prlimit", "setpriv"} {
		p, err := exec.LookPath(tool)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(p, filepath.Join(dir, tool)))
	}
	if broken {
		script := "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755))
	}
	return dir
}

func TestNewLocalSandboxChoice(t *testing.T) {
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
			sandbox: SandboxBwrap, wantErr: "bwrap is not installed"},
		{name: "bwrap required but broken", path: func(t *testing.T) string { return fakeBin(t, true) },
			sandbox: SandboxBwrap, wantErr: "cannot create a sandbox"},
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
