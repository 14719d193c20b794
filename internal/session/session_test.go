package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
)

const demo = "../../examples/semver"

// sharedState keeps the verdict cache across the tests of this process, so the demo's
// tests are judged once per `go test`; buildCache keeps Go's compile cache across
// processes (it only holds compiled packages, never verdicts).
var (
	sharedState string
	buildCache  = filepath.Join(os.TempDir(), "dixit-test-gocache")
)

func TestMain(m *testing.M) {
	// The python preset's tests need Debian's python3 (with pytest) before a pyenv one
	// without it. Set once here, so they may run side by side.
	os.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	dir, err := os.MkdirTemp("", "dixit-session-")
	if err != nil {
		panic(err)
	}
	sharedState = dir
	if shared := os.Getenv("DIXIT_TEST_RESULTS"); shared != "" { // CI shares verdicts across packages
		if err := os.Symlink(shared, filepath.Join(dir, "cache")); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedVerdicts is the verdict cache of the tests that judge the same jobs (the demo,
// the calc repository's live population, examples/percent): CI's across packages, else
// this process's. A test that needs judge work of its own keeps its own state's cache.
func sharedVerdicts() string { return filepath.Join(sharedState, "cache") }

func runDemo(t *testing.T, runID string, afterAppend func(int) error) (*session.Outcome, error) {
	t.Helper()
	return session.Run(context.Background(), session.Options{
		Population: demo, StateDir: sharedState, BuildCache: buildCache, RunID: runID, AfterAppend: afterAppend,
	})
}

// TestDemoShowsTheWholeProtocol checks what the README promises the demo shows.
func TestDemoShowsTheWholeProtocol(t *testing.T) {
	out, err := runDemo(t, fmt.Sprintf("whole-%d", os.Getpid()), nil)
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, orchestrate.TestersExhausted, res.Outcome)

	seen := map[string]bool{}
	for _, ev := range res.Events {
		seen[ev.Kind] = true
		if ev.Kind == orchestrate.EvClassify {
			seen[string(ev.Class)] = true
		}
		if ev.Kind == orchestrate.EvRollback {
			seen["rollback "+ev.Agent] = true
		}
	}
	for _, want := range []string{"IDEAL", "TOO_WEAK", "TOO_HARD", "hibernate", "revive", "rollback ivy", "rollback basil", "escalate"} {
		assert.True(t, seen[want], "the demo shows %s", want)
	}
	var vetted []string
	for _, v := range res.Vetted {
		vetted = append(vetted, fmt.Sprintf("%s r%d %s", v.ID, v.Round, strings.Join(v.FailedBy, ",")))
	}
	assert.Equal(t, []string{"ivy-3 r1 basil", "ivy-4 r2 cedar,dune", "kai-1 r3 basil"}, vetted)

	var sum runfile.Summary
	data, err := os.ReadFile(out.JSON)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	assert.Equal(t, "TESTERS_EXHAUSTED", string(sum.Outcome))
	assert.Len(t, sum.Vetted, 3)
	assert.Equal(t, "refs/dixit/"+sum.Run+"/coders/basil", sum.Coders[1].Ref)
	assert.Equal(t, 5, sum.Coders[1].Solves)
	assert.Equal(t, []string{"active", "hibernated", "active"}, []string{sum.Testers[0].State, sum.Testers[1].State, sum.Testers[2].State})
	require.NotNil(t, sum.Preflight, "the base was checked before any agent worked")
	assert.True(t, sum.Preflight.Passed)
	assert.Equal(t, "none", sum.Preflight.OwnTests, "the demo's base has no tests of its own")
	// A failing verdict keeps the judge's words: a reader sees why it failed.
	var failing []orchestrate.Cell
	for _, ev := range sum.Events {
		for _, c := range ev.Cells {
			if c.Outcome != "pass" {
				failing = append(failing, c)
			}
		}
	}
	require.NotEmpty(t, failing)
	// jun-1 calls a function no coder has: it builds for none, yet the environment is
	// fine (an empty test on the base passes), so it is TOO_HARD, not ENVIRONMENT.
	for _, ev := range sum.Events {
		if ev.Kind == orchestrate.EvClassify && ev.Test == "jun-1" {
			assert.Equal(t, orchestrate.TooHard, ev.Class)
			for _, c := range ev.Cells {
				assert.Equal(t, "build_failed", c.Outcome)
			}
		}
	}
	for _, c := range failing {
		assert.NotEmpty(t, c.Output, "%s on %s: %s", c.Test, c.Coder, c.Outcome)
		assert.LessOrEqual(t, len(c.Output), 2048+len("…\n"))
	}
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "**Outcome: TESTERS_EXHAUSTED**")
	assert.Contains(t, string(md), "no LLM was called")
	// The base panics "not implemented": every vetted test fails there, so each tests
	// the change, and the report says so.
	for _, v := range sum.Vetted {
		require.NotNil(t, v.OnBase, "test %s was run on the base", v.ID)
		assert.Equal(t, runfile.TestsTheChange, v.OnBase.Kind(), v.ID)
		assert.Contains(t, v.OnBase.Output, "not implemented", "the base's own failure is kept")
	}
	assert.Contains(t, string(md), "On the base revision, 3 of the 3 vetted tests fail: they test the change. None passes there.")
	assert.Contains(t, string(md), "first failed by basil; tests the change")

	// Differential testing: the five implementations pass the same suite, yet the probe
	// finds where they differ: ember counts build metadata (the only test about it had a
	// wrong expectation), dune overflows on a huge numeric identifier.
	cmp := sum.Comparison
	require.NotNil(t, cmp)
	require.NotNil(t, cmp.Differential, cmp.ProbeNote)
	got := map[string]map[string]string{}
	for _, d := range cmp.Differential.Disagreements {
		got[d.Input] = d.Outputs
	}
	assert.Equal(t, map[string]string{"amber": "0", "basil": "0", "cedar": "0", "dune": "0", "ember": "1"}, got[`["1.0.0+20130313144700","1.0.0"]`])
	assert.Equal(t, "0", got[`["1.0.0-18446744073709551616","1.0.0-18446744073709551615"]`]["dune"])
	assert.Len(t, got, 4)
	assert.Contains(t, string(md), "## Where the implementations disagree")
	// The hybrid pick agrees with the majority: ember passes one more proposed test (kai's
	// wrong build-metadata expectation) but alone, so dual agreement ranks it low.
	assert.NotContains(t, []string{"dune", "ember"}, cmp.Pick.Coder, "the pick agrees with the majority")
	assert.Equal(t, 10, cmp.Proposed["ember"], "every proposed test each implementation passes is counted")
	assert.Equal(t, []string{"amber", "basil", "cedar", "dune", "ember"}, cmp.Pick.Candidates)
	for _, d := range cmp.Touched {
		assert.NotEmpty(t, d.Files, "%s changed semver.go", d.Coder)
	}
	page, err := os.ReadFile(out.HTML)
	require.NoError(t, err)
	assert.Contains(t, string(page), "<svg", "the HTML page draws the chart itself")
}

// TestDemoResumesAfterAnInterruptionAtEveryEffect cuts the demo after each journalled
// effect, starts it again, and checks it ends exactly as an uninterrupted run, paying only
// for the effects that were not yet journalled.
func TestDemoResumesAfterAnInterruptionAtEveryEffect(t *testing.T) {
	t.Parallel()
	whole, err := runDemo(t, fmt.Sprintf("whole-%d", os.Getpid()), nil)
	require.NoError(t, err)
	effects := whole.Result.Replayed + whole.Result.Live
	require.Greater(t, effects, 50)

	// The cuts are independent runs (a run id each, sharing only the verdict cache), so a
	// few are run at once; each is then checked in order, as one after another would be.
	type cutRun struct {
		cutErr, err, removeErr error
		resumed                *session.Outcome
	}
	runs := atOnce(1, effects, func(cut int) cutRun {
		id := fmt.Sprintf("cut-%d-%d", os.Getpid(), cut)
		_, cutErr := runDemo(t, id, func(seq int) error {
			if seq == cut {
				return orchestrate.ErrInterrupted
			}
			return nil
		})
		if !errors.Is(cutErr, orchestrate.ErrInterrupted) {
			return cutRun{cutErr: cutErr}
		}
		resumed, err := whenFree(func() (*session.Outcome, error) { return runDemo(t, id, nil) })
		if err != nil {
			return cutRun{cutErr: cutErr, err: err}
		}
		return cutRun{cutErr: cutErr, resumed: resumed, removeErr: os.RemoveAll(resumed.RunDir)}
	})
	for i, run := range runs {
		cut := i + 1
		require.ErrorIs(t, run.cutErr, orchestrate.ErrInterrupted, "cut %d", cut)
		require.NoError(t, run.err, "cut %d", cut)
		r := run.resumed.Result
		assert.Equal(t, cut, r.Replayed, "cut %d: every journalled effect is replayed", cut)
		assert.Equal(t, effects-cut, r.Live, "cut %d: only the rest is performed", cut)
		assert.Equal(t, whole.Result.Outcome, r.Outcome, "cut %d", cut)
		assert.Equal(t, whole.Result.Vetted, r.Vetted, "cut %d", cut)
		assert.Equal(t, whole.Result.Coders, r.Coders, "cut %d: same workspaces, commit for commit", cut)
		assert.Equal(t, whole.Result.Testers, r.Testers, "cut %d", cut)
		assert.Equal(t, orchestratetest.Unflagged(whole.Result.Events), orchestratetest.Unflagged(r.Events), "cut %d", cut)
		require.NoError(t, run.removeErr, "cut %d", cut)
	}
}

// whenFree calls run again while it finds its run's lease still held (session.ErrRunBusy),
// for at most a few seconds. With runs at once in one process, a child that another run
// forks (for the sandbox) holds a copy of every open file, the lease of the run just cut
// among them, until it execs: the lease is free a moment later.
func whenFree(run func() (*session.Outcome, error)) (*session.Outcome, error) {
	for range 100 {
		out, err := run()
		if !errors.Is(err, session.ErrRunBusy) {
			return out, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return run()
}

// cutWorkers is how many cut runs atOnce runs at a time. A cut run waits on the sandbox's
// builds and on the disk about as long as it computes, so on two cores four keep them busy.
const cutWorkers = 4

// atOnce calls do(i) for each i from first to before end, cutWorkers at a time, and returns
// the results in the order of i. do must not stop the test (no require): its caller checks
// the results.
func atOnce[R any](first, end int, do func(i int) R) []R {
	out := make([]R, max(end-first, 0))
	next := make(chan int)
	var wg sync.WaitGroup
	for range cutWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i-first] = do(i)
			}
		}()
	}
	for i := first; i < end; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// TestAResumedRunReportsTheWholeRun cuts the demo, resumes it, and checks the report,
// the summary and the closing lines give the wall time and judge work of both
// invocations, not the last start's alone.
func TestAResumedRunReportsTheWholeRun(t *testing.T) {
	t.Parallel()
	state := t.TempDir() // a verdict cache of its own: the first invocation's judge work is real
	run := func(afterAppend func(int) error) (*session.Outcome, error) {
		return session.Run(context.Background(), session.Options{
			Population: demo, StateDir: state, BuildCache: buildCache, RunID: "resumed", AfterAppend: afterAppend,
		})
	}
	_, err := run(func(seq int) error {
		if seq == 20 { // past the first classifications
			time.Sleep(time.Second) // the first invocation lasts at least this long
			return orchestrate.ErrInterrupted
		}
		return nil
	})
	require.ErrorIs(t, err, orchestrate.ErrInterrupted)
	out, err := run(nil)
	require.NoError(t, err)

	invs, err := runfile.ReadInvocations(out.RunDir)
	require.NoError(t, err)
	require.Len(t, invs, 2, "the cut invocation is recorded too")
	first, last := invs[0], invs[1]
	assert.GreaterOrEqual(t, first.WallSeconds, 1.0)
	assert.Positive(t, first.Judge.Executions, "the first invocation judged the first proposals")
	sum := out.Summary
	assert.Equal(t, 2, sum.Invocations)
	assert.InDelta(t, first.WallSeconds+last.WallSeconds, sum.WallSeconds, 1e-6)
	assert.Equal(t, first.Judge.Executions+last.Judge.Executions, sum.Judge.Executions)
	assert.Greater(t, sum.Judge.Executions, last.Judge.Executions, "the report counts the first invocation's judge work")

	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), fmt.Sprintf("Judge: %d executions", sum.Judge.Executions))
	assert.Contains(t, string(md), "wall time over 2 invocations.")
	var printed strings.Builder
	out.Print(&printed, state, true)
	assert.Contains(t, printed.String(), fmt.Sprintf("judge: %d executions", sum.Judge.Executions))
	assert.Contains(t, printed.String(), fmt.Sprintf("of %.1f s wall time over 2 invocations", sum.WallSeconds))
}
