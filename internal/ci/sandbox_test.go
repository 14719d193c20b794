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

	"github.com/dixit-bot/dixit/internal/ci/agentexec"
	"github.com/dixit-bot/dixit/internal/ci/citest"
)

// fakeBin is a PATH holding the tools the judge needs, and a bwrap that cannot create
// namespaces when broken is set (as on hosts without unprivileged user namespaces).
func fakeBin(t *testing.T, broken bool) string {
	if broken {
		return citest.FakeBin(t, citest.NoNamespaces)
	}
	return citest.FakeBin(t, "")
}

func TestNewLocalSandboxChoice(t *testing.T) {
	citest.KeepUmask(t)
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
			sandbox: SandboxBwrap, wantErr: "sandbox bwrap cannot start: bwrap cannot create a sandbox here: self-check: sandbox failed to start (exit 1): " + citest.NoNamespaces},
		{name: "bwrap required but refused a uid map", path: func(t *testing.T) string { return citest.FakeBin(t, citest.NoUIDMap) },
			sandbox: SandboxBwrap, wantErr: citest.NoUIDMap + ". To fix it: "},
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
			assert.Equal(t, c.bwrap, l.sb.Bubblewrap())
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
	citest.KeepUmask(t)
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
	if l.sb.Root() {
		assert.False(t, processWithArg(marker), "as root the lane's uid is swept clean")
	}
}

// TestExecRefusedWithoutSandbox: an agent's command never runs without bubblewrap,
// whether bwrap is missing, cannot start (auto fell back) or none was chosen: there it
// could read the workshop, which holds the tests coders must never see.
func TestExecRefusedWithoutSandbox(t *testing.T) {
	citest.KeepUmask(t)
	for _, c := range []struct {
		name    string
		says    string // the stand-in bwrap's error; "" for none chosen with the real one
		sandbox Sandbox
	}{
		{"bwrap cannot create namespaces", citest.NoNamespaces, SandboxAuto},
		{"bwrap refused a uid map", citest.NoUIDMap, SandboxAuto},
		{"sandbox none", "", SandboxNone},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.says != "" {
				t.Setenv("PATH", citest.FakeBin(t, c.says)+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			l, err := NewLocal(LocalOptions{Contract: shellContract(), Sandbox: c.sandbox, Logger: quietLogger()})
			require.NoError(t, err)
			defer l.Close()
			dir := t.TempDir()
			r, err := l.Exec(context.Background(), dir, "touch ran", time.Minute)
			require.ErrorIs(t, err, agentexec.ErrNoSandbox)
			assert.Zero(t, r)
			assert.NoFileExists(t, filepath.Join(dir, "ran"), "the command ran")
		})
	}
}
