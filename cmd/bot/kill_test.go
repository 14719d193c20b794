package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/report"
)

// TestKilledDemoResumesToTheSameEnd kills `bot demo` with SIGKILL at random moments,
// starts it again with the same command each time, and checks that every run ends exactly
// as an uninterrupted one: same outcome, same vetted tests, same workspace commits, and
// as many journal entries, so no finished effect was paid for twice.
func TestKilledDemoResumesToTheSameEnd(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bot")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))

	state := t.TempDir()
	demo := func(extra ...string) *exec.Cmd {
		args := []string{"demo", "--state", state, "--population", "../../examples/semver",
			"--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache")}
		cmd := exec.Command(bin, append(args, extra...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	out, err = demo().CombinedOutput()
	require.NoError(t, err, string(out))
	whole := readSummary(t, state)

	// With every verdict cached, a run takes only its orchestration time: kill within it.
	began := time.Now()
	out, err = demo("--fresh").CombinedOutput()
	require.NoError(t, err, string(out))
	span := time.Since(began)
	readSummary(t, state)

	seed := uint64(time.Now().UnixNano())
	t.Logf("a cached run takes %s; kill delays seeded with %d", span, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	kills := 0
	for cycle := 0; cycle < 4; cycle++ {
		for attempt := 0; ; attempt++ {
			var args []string
			if attempt == 0 {
				args = append(args, "--fresh")
			}
			if kill(t, demo(args...), time.Duration(rng.Int64N(int64(span)))) {
				kills++
				continue
			}
			break
		}
		resumed := readSummary(t, state)
		assert.Equal(t, whole.Outcome, resumed.Outcome)
		assert.Equal(t, whole.Vetted, resumed.Vetted)
		assert.Equal(t, whole.Coders, resumed.Coders, "the same workspace commits")
		assert.Equal(t, whole.Testers, resumed.Testers)
		assert.Equal(t, whole.Journal.Entries, resumed.Journal.Entries, "no effect journalled twice")
		assert.Equal(t, len(whole.Events), len(resumed.Events))
	}
	t.Logf("%d kills", kills)
	assert.Greater(t, kills, 0)
}

// kill starts cmd and sends SIGKILL to its process group after delay; it reports whether
// the kill landed (false: the run finished first).
func kill(t *testing.T, cmd *exec.Cmd, delay time.Duration) bool {
	t.Helper()
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, output.String())
		return false
	case <-time.After(delay):
		require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
		return <-done != nil
	}
}

func readSummary(t *testing.T, state string) report.Summary {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(state, "runs", "*", "summary.json"))
	require.NoError(t, err)
	require.Len(t, paths, 1)
	data, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	var s report.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	require.NoError(t, os.Remove(paths[0]))
	return s
}
