package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/agentexec"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/llm"
)

// fakeRunner records commands and answers with a fixed result.
type fakeRunner struct {
	res   agentexec.Result
	err   error
	calls []fakeCall
}

type fakeCall struct {
	dir, command string
	timeout      time.Duration
}

func (f *fakeRunner) Exec(_ context.Context, dir, command string, timeout time.Duration) (agentexec.Result, error) {
	f.calls = append(f.calls, fakeCall{dir, command, timeout})
	return f.res, f.err
}

func TestRunCommandResults(t *testing.T) {
	long := strings.Repeat("x", agentexec.MaxOutput)
	cases := []struct {
		name string
		res  agentexec.Result
		want string
	}{
		{"success", agentexec.Result{Exit: 0, Output: "ok  \texample.com/x\t0.01s\n"}, "exit code 0\noutput:\nok  \texample.com/x\t0.01s\n"},
		{"failure is a result", agentexec.Result{Exit: 2, Output: "x.go:3: undefined: y\n"}, "exit code 2\noutput:\nx.go:3: undefined: y\n"},
		{"no output", agentexec.Result{Exit: 1}, "exit code 1\n(no output)"},
		{"timeout", agentexec.Result{Exit: -1, TimedOut: true, Note: "timed out after 5s", Output: "started\n"},
			"stopped: the command ran longer than 5s\noutput:\nstarted\n"},
		{"output flood", agentexec.Result{Exit: -1, OverLimit: true, Note: "output exceeded 8388608 bytes", Output: long},
			"stopped: output exceeded 8388608 bytes\noutput (only its last part):\n" + long},
		{"resource limit", agentexec.Result{Exit: 153, OverLimit: true, Note: "killed by SIGXFSZ: file size limit exceeded"},
			"stopped: killed by SIGXFSZ: file size limit exceeded (exit code 153)\n(no output)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runner := &fakeRunner{res: c.res}
			w := newWorkspace(t, Options{Runner: runner, CommandTimeout: 5 * time.Second})
			out := call(t, w, toolRun, `{"command": "go test ./..."}`)
			assert.Equal(t, c.want, out)
			assert.False(t, IsToolError(out))
			assert.Equal(t, []fakeCall{{w.Dir(), "go test ./...", 5 * time.Second}}, runner.calls)
		})
	}
}

func TestRunCommandRunnerFailure(t *testing.T) {
	broken := errors.New("sandbox failed to start")
	w := newWorkspace(t, Options{Runner: &fakeRunner{err: broken}})
	out, err := w.Call(context.Background(), llm.ToolCall{Name: toolRun, Arguments: `{"command": "ls"}`})
	assert.ErrorIs(t, err, broken)
	assert.Empty(t, out)
}

// TestRunCommandSandboxed runs commands through a real local judge: the toolchain is
// there, the network is not, and files pass both ways between the tools and commands.
func TestRunCommandSandboxed(t *testing.T) {
	contract, ok := languages.Preset("go")
	require.True(t, ok)
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(), Parallel: 1,
		Sandbox: ci.SandboxBwrap, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Skipf("skipped: no working bubblewrap sandbox on this host (install bwrap to run it): %v", err)
	}
	t.Cleanup(func() { judge.Close() })
	w := newWorkspace(t, Options{Runner: judge, CommandTimeout: time.Minute})

	t.Run("toolchain", func(t *testing.T) {
		out := call(t, w, toolRun, `{"command": "go version"}`)
		assert.True(t, strings.HasPrefix(out, "exit code 0\noutput:\ngo version go1."), out)
	})
	t.Run("files written by tools and by commands", func(t *testing.T) {
		call(t, w, toolWrite, `{"path": "in.txt", "content": "from the tool\n"}`)
		out := call(t, w, toolRun, `{"command": "cat in.txt && mkdir -p gen && echo from the command > gen/out.txt"}`)
		assert.Equal(t, "exit code 0\noutput:\nfrom the tool\n", out)
		assert.Equal(t, "from the command\n", call(t, w, toolRead, `{"path": "gen/out.txt"}`))
		assert.Equal(t, "deleted gen/out.txt", call(t, w, toolDelete, `{"path": "gen/out.txt"}`))
		fi, err := os.Stat(filepath.Join(w.Dir(), "gen"))
		require.NoError(t, err)
		assert.Equal(t, uint32(os.Getuid()), ownerUID(fi), "a directory made by the command is not ours")
	})
	t.Run("no network", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("skipped: bash is needed for its /dev/tcp probe")
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
		cmd := fmt.Sprintf(`%s -c 'exec 3<>/dev/tcp/127.0.0.1/%d' && echo connected`, bash, ln.Addr().(*net.TCPAddr).Port)
		out := call(t, w, toolRun, map[string]string{"command": cmd})
		assert.False(t, strings.HasPrefix(out, "exit code 0"), out)
		assert.NotContains(t, out, "connected\n")
		assert.Zero(t, accepted.Load(), "the host's listener saw a connection")
	})
	t.Run("timeout", func(t *testing.T) {
		short := newWorkspace(t, Options{Runner: judge, CommandTimeout: time.Second})
		out := call(t, short, toolRun, `{"command": "echo waiting; sleep 30"}`)
		assert.Equal(t, "stopped: the command ran longer than 1s\noutput:\nwaiting\n", out)
	})
}
