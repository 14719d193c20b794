package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// TestKilledDemoResumesToTheSameEnd kills `bot demo` with SIGKILL at random moments,
// starts it again with the same command each time, and checks that every run ends exactly
// as an uninterrupted one: same outcome, same vetted tests, same workspace commits, and
// as many journal entries, so no finished effect was paid for twice.
func TestKilledDemoResumesToTheSameEnd(t *testing.T) {
	t.Parallel()
	bin := buildBot(t)

	state := demoState(bin)
	if shared := os.Getenv("DIXIT_TEST_RESULTS"); shared != "" { // CI shares verdicts across packages
		require.NoError(t, os.MkdirAll(state, 0o755))
		if err := os.Symlink(shared, filepath.Join(state, "cache")); err != nil && !os.IsExist(err) {
			require.NoError(t, err)
		}
	}
	demo := func(extra ...string) *exec.Cmd {
		args := []string{"demo", "--state", state, "--population", "../../examples/semver",
			"--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache")}
		cmd := exec.Command(bin, append(args, extra...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	out, err := demo().CombinedOutput()
	require.NoError(t, err, string(out))
	whole := readSummary(t, state)

	// With every verdict cached, a run takes only its orchestration time: kill within it.
	forget(t, state)
	began := time.Now()
	out, err = demo().CombinedOutput()
	require.NoError(t, err, string(out))
	span := time.Since(began)
	readSummary(t, state)

	seed := uint64(time.Now().UnixNano())
	t.Logf("a cached run takes %s; kill delays seeded with %d", span, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	kills := 0
	for cycle := 0; cycle < 4; cycle++ {
		forget(t, state)
		for kill(t, demo(), time.Duration(rng.Int64N(int64(span)))) {
			kills++
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
	assert.Empty(t, leftovers(state, 5*time.Second), "processes of killed runs still alive (their command lines name the run's state)")
}

// leftovers lists the processes whose command line names dir, once none is left or
// after wait: a killed bot must not leave its sandboxes running (or waiting) behind it.
func leftovers(dir string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		var found []string
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err == nil && bytes.Contains(b, []byte(dir)) {
				found = append(found, fmt.Sprintf("%s: %.200s", filepath.Base(filepath.Dir(p)), bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
			}
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// buildBot builds this command once per test binary.
func buildBot(t *testing.T) string {
	t.Helper()
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dixit-bot-")
		if err != nil {
			builtErr = err
			return
		}
		builtBin = filepath.Join(dir, "bot")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	require.NoError(t, builtErr)
	return builtBin
}

var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// demoState is the demo kill test's state directory. The serve tests use its verdict
// cache: the App's scripted coders commit the population's trees, so the demo's verdicts
// are theirs too, and the demo is judged once per test binary.
func demoState(bin string) string { return filepath.Join(filepath.Dir(bin), "demo-state") }

// killsWanted is how many kills a crash test makes: DIXIT_KILLS, else def (CI's share;
// docs/reliability.md gives the figures of longer runs).
func killsWanted(def int) int {
	if n, err := strconv.Atoi(os.Getenv("DIXIT_KILLS")); err == nil && n > 0 {
		return n
	}
	return def
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
		require.True(t, ended(err), "%v\n%s", err, output.String())
		return false
	case <-time.After(delay):
		// ESRCH: the run ended just as the delay did, and nothing was left to kill.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			require.NoError(t, err)
		}
		return !ended(<-done)
	}
}

// ended reports whether a bot process ended as a run ends: exit 0, or cli.ExitStopped when a
// live run stopped for a human (every one here does).
func ended(err error) bool {
	var exit *exec.ExitError
	return err == nil || errors.As(err, &exit) && exit.ExitCode() == cli.ExitStopped
}

// forget deletes the runs under state, keeping the caches, so the next run starts over
// (what --fresh does, but done before the first kill can land).
func forget(t *testing.T, state string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(filepath.Join(state, "runs")))
}

func readSummary(t *testing.T, state string) runfile.Summary {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(state, "runs", "*", "summary.json"))
	require.NoError(t, err)
	require.Len(t, paths, 1)
	data, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	var s runfile.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	require.NoError(t, os.Remove(paths[0]))
	return s
}

// TestKilledLiveRunResumesToTheSameEnd kills `bot run` (live agents, the model faked at
// the HTTP level) with SIGKILL at random moments and starts it again until it ends; each
// cycle must end as the uninterrupted run did. The model is paid again only for the
// requests in flight when a kill landed: a reply that was journalled is never asked for
// twice.
func TestKilledLiveRunResumesToTheSameEnd(t *testing.T) {
	bin := buildBot(t)
	repo := liveRepo(t)
	spec := filepath.Join(t.TempDir(), "spec.md")
	require.NoError(t, os.WriteFile(spec, []byte("Implement Add: it returns a + b. Also Sub: a - b.\n"), 0o644))
	model := llmtest.NewServer(t, llmtest.WithAPIKey("sk-test"))
	model.Reply(liveAgents)

	state := t.TempDir()
	live := func(extra ...string) *exec.Cmd {
		args := []string{"run", "--spec", spec, "--repo", repo, "--state", state,
			"--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache")}
		cmd := exec.Command(bin, append(args, extra...)...)
		// The start check would add a request per start to the count of paid requests.
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+model.URL(), "OPENAI_API_KEY=sk-test", "DIXIT_SKIP_DOCTOR=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	out, err := live().CombinedOutput()
	require.True(t, ended(err), "%v\n%s", err, out)
	whole := readSummary(t, state)
	paid := len(model.Requests())
	forget(t, state) // the verdicts stay cached: time a run that only orchestrates
	began := time.Now()
	out, err = live().CombinedOutput()
	require.True(t, ended(err), "%v\n%s", err, out)
	span := time.Since(began)
	readSummary(t, state)
	agents := len(whole.Coders) + len(whole.Testers) // at most this many requests in flight

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("an uninterrupted run: %s, %d model requests, %d journal entries; kill delays seeded with %d",
		span.Round(time.Millisecond), paid, whole.Journal.Entries, seed)
	kills, want := 0, killsWanted(6)
	for kills < want {
		forget(t, state)
		before, cycleKills := len(model.Requests()), 0
		for kill(t, live(), time.Duration(rng.Int64N(int64(span)))) {
			cycleKills++
		}
		kills += cycleKills
		resumed := readSummary(t, state)
		assert.Equal(t, whole.Outcome, resumed.Outcome)
		assert.Equal(t, whole.Vetted, resumed.Vetted, "no vetted test lost")
		assert.Equal(t, whole.Coders, resumed.Coders, "the same workspace commits")
		assert.Equal(t, whole.Journal.Entries, resumed.Journal.Entries, "no effect journalled twice")
		again := len(model.Requests()) - before - paid
		t.Logf("cycle: %d kills, %d model requests paid again", cycleKills, again)
		assert.GreaterOrEqual(t, again, 0)
		assert.LessOrEqual(t, again, cycleKills*agents, "only requests in flight at a kill are paid again")
	}
	t.Logf("%d kills", kills)
}

// liveRepo is a git repository with two functions to implement and a small population.
func liveRepo(t *testing.T) string {
	repo := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "package calc\n\nfunc Add(a, b int) int { panic(\"todo\") }\n\nfunc Sub(a, b int) int { panic(\"todo\") }\n",
		".github/dixit.yml": "coders: 3\ntesters: 2\nreruns: 2\nmax_tester_retries: 1\nagents:\n  model: fake\n" +
			"  testers:\n    - {name: add, direction: \"Test Add.\"}\n    - {name: sub, direction: \"Test Sub.\"}\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "stub"}} {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	return repo
}

// liveAgents answers as three coders (one gets Sub backwards at first) and two testers.
func liveAgents(req llmtest.RecordedRequest) llmtest.Step {
	system, last := req.Messages[0].Content, req.Messages[len(req.Messages)-1]
	turns := 0
	for _, m := range req.Messages {
		if m.Role == "user" {
			turns++
		}
	}
	call := func(name string, args map[string]string) llmtest.Step {
		data, _ := json.Marshal(args)
		return llmtest.Calls(llmtest.ToolCall{ID: name, Name: name, Arguments: string(data)})
	}
	if strings.Contains(system, "You write tests") {
		check := "Add(2, 3) != 5"
		if strings.Contains(system, "Test Sub.") {
			check = "Sub(5, 3) != 2"
		}
		if turns > 1 {
			check = "Add(0, 0) != 0"
		}
		return call("submit_test", map[string]string{"content": fmt.Sprintf(
			"package calc\n\nimport \"testing\"\n\nfunc TestCalc%d(t *testing.T) {\n\tif %s {\n\t\tt.Fatal()\n\t}\n}\n", turns, check)})
	}
	if last.Role == "tool" {
		return call("finish", map[string]string{"summary": "done"})
	}
	sub := "a - b"
	if strings.Contains(system, "coder-3") && turns == 1 {
		sub = "b - a"
	}
	return call("write_file", map[string]string{"path": "calc.go", "content": fmt.Sprintf(
		"package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return %s }\n", sub)})
}
