package apprun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ci/actions"
	"github.com/dixit-bot/dixit/internal/ci/actions/actionstest"
	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// threeTesters is examples/percent with three testers instead of one (ivy's tests
// under two more names, each with a comment of its own): 5 coders and 3 testers, at most width agents of a phase at once
// (parallel_agents; 0 for all).
func threeTesters(t *testing.T, width int) string {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(percent)))
	for _, name := range []string{"jun", "kai"} {
		to := filepath.Join(dir, "testers", name)
		require.NoError(t, os.CopyFS(to, os.DirFS(filepath.Join(percent, "testers", "ivy"))))
		// Each tester's tests its own, or the verdict cache would answer for the copies.
		tests, err := filepath.Glob(filepath.Join(to, "*", "*.py"))
		require.NoError(t, err)
		require.NotEmpty(t, tests)
		for _, test := range tests {
			data, err := os.ReadFile(test)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(test, append(data, "\n# proposed by "+name+"\n"...), 0o644))
		}
	}
	settings := filepath.Join(dir, "dixit.yml")
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.Contains(t, string(data), "testers: 1\n")
	edited := strings.Replace(string(data), "testers: 1\n", fmt.Sprintf("testers: 3\nparallel_agents: %d\n", width), 1)
	require.NoError(t, os.WriteFile(settings, []byte(edited), 0o644))
	return dir
}

// dispatched is one workflow dispatch: the tests of its batch, and how long the run's
// journal was then.
type dispatched struct {
	journal int
	tests   []string
}

// journalRecord is what the figures read of a journal entry.
type journalRecord struct {
	Effect, Lane string
	Phase        int
}

// roundFigures are one round's judge work: its judge effects (a workflow run each when
// every agent asks the judge on its own), its steps (in each phase, the most judge
// effects of one agent) and the workflow runs the protocol dispatched.
type roundFigures struct{ effects, steps, runs int }

// perRound counts each round's judge effects, steps and workflow runs. A round is a
// phase of the coders' suite runs and the testers' phase after it; a dispatch belongs to
// the phase of the journal entries that follow it, the verdicts it brought.
func perRound(t *testing.T, journal []journalRecord, testers []string, runs []dispatched) []roundFigures {
	t.Helper()
	round := map[int]int{} // phase → round
	testerPhases := 0
	for _, rec := range journal {
		if _, ok := round[rec.Phase]; !ok && rec.Phase > 0 {
			round[rec.Phase] = testerPhases + 1
			if slices.Contains(testers, rec.Lane) {
				testerPhases++
			}
		}
	}
	rounds := 0
	for _, k := range round {
		rounds = max(rounds, k)
	}
	figures := make([]roundFigures, rounds+1)
	perLane := map[int]map[string]int{}
	for _, rec := range journal {
		if rec.Effect != "judge" {
			continue
		}
		require.NotEmpty(t, rec.Lane, "the protocol's judge calls are its agents'")
		figures[round[rec.Phase]].effects++
		if perLane[rec.Phase] == nil {
			perLane[rec.Phase] = map[string]int{}
		}
		perLane[rec.Phase][rec.Lane]++
	}
	for phase, lanes := range perLane {
		most := 0
		for _, n := range lanes {
			most = max(most, n)
		}
		figures[round[phase]].steps += most
	}
	for _, d := range runs {
		figures[round[journal[d.journal].Phase]].runs++
	}
	return figures[1:]
}

// TestActionsRunsPerRound: 5 coders and 3 testers through the App with the Actions judge
// on the fake GitHub, once with parallel_agents 1 (a workflow run per judge call that the
// verdict cache does not answer, as before batching) and once with every agent of a phase
// at once: the testers' proposals of one step are classified in one workflow run, and the
// coders' suite runs of one step share one too. Each round dispatches at most one run per
// step, fewer than one agent after the other did, and the run stops where it did.
func TestActionsRunsPerRound(t *testing.T) {
	t.Parallel()
	// The two runs are independent: they share only the build cache.
	var alone, batched []roundFigures
	var othersAlone, others int
	t.Run("runs", func(t *testing.T) {
		t.Run("one agent at a time", func(t *testing.T) {
			t.Parallel()
			alone, othersAlone = actionsRounds(t, 1)
		})
		t.Run("batched", func(t *testing.T) {
			t.Parallel()
			batched, others = actionsRounds(t, 0)
		})
	})
	require.False(t, t.Failed())
	assert.Equal(t, othersAlone, others, "the runs outside the rounds are the same")
	require.Len(t, batched, len(alone), "the same rounds")
	var before, after, steps []int
	for k := range batched {
		assert.LessOrEqual(t, batched[k].runs, batched[k].steps, "round %d: at most one workflow run per step", k+1)
		assert.LessOrEqual(t, batched[k].runs, alone[k].runs, "round %d", k+1)
		before, after, steps = append(before, alone[k].runs), append(after, batched[k].runs), append(steps, batched[k].steps)
	}
	assert.Less(t, sum(after), sum(before), "batching saves workflow runs")
	t.Logf("workflow runs per round, 5 coders x 3 testers: one agent at a time %v (%d), batched %v (%d), steps %v; "+
		"%d more outside the rounds either way (the base revision's check, the comparisons at the stops)",
		before, sum(before), after, sum(after), steps, others)
}

func sum(s []int) int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

// actionsRounds runs the three testers' population with parallel_agents width to its
// CODERS_STUCK (a stop, /dixit wake, the next stop) and returns each round's figures and
// the workflow runs outside the rounds.
func actionsRounds(t *testing.T, width int) ([]roundFigures, int) {
	w := newWorldOf(t, threeTesters(t, width))
	w.gh.State.SetPermission("Codertocat", "Hello-World", "maria", "write")
	w.gh.State.SetFile("Codertocat", "Hello-World-dixit", "main", classify.WorkflowPath, string(classify.Workflow))
	s := w.server(t, "server-a", func(e *Executor) {
		e.Actions = actions.Config{PollInterval: time.Hour, MaxPollInterval: time.Hour, FindTimeout: 10 * time.Second, RunTimeout: 5 * time.Minute}
	})
	var mu sync.Mutex
	var all []dispatched
	var wg sync.WaitGroup
	defer wg.Wait()
	w.gh.Actions().OnDispatch(func(d ghtest.Dispatch) ghtest.RunScript {
		n, err := localJournalLength(w.disks["server-a"], RunID(w.issue))
		assert.NoError(t, err)
		tests, err := batchTests(w.git.Path("Hello-World-dixit"), d.Inputs["batch_ref"], t.TempDir())
		assert.NoError(t, err)
		mu.Lock()
		all = append(all, dispatched{journal: n, tests: tests})
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			arts, err := actionstest.Run(context.Background(), d, w.git.Path("Hello-World-dixit"), t.TempDir(),
				actionstest.Caches{Build: filepath.Join(os.TempDir(), "dixit-test-gocache"), Verdicts: sharedResults})
			if !assert.NoError(t, err) {
				w.gh.Actions().Finish(d.RunID, "failure", nil)
				return
			}
			w.gh.Actions().Finish(d.RunID, "success", arts)
			w.workflowRunCompleted(t, s, d.RunID)
		}()
		return ghtest.RunScript{JobDuration: 50 * time.Second}
	})
	w.deliver(t, s, "d1")
	r := w.waitEnd(t, s)
	require.Equal(t, app.Finished, r.State, r.Detail)
	w.statusSays(t, "### Dixit: ALL_TESTERS_HIBERNATED", "| ivy | hibernated |", "| jun | hibernated |", "| kai | hibernated |")
	// Woken, the testers' next tests enter the suite, and the coders run it.
	w.comment(t, s, 1, false, 201, "maria", "/dixit wake")
	w.statusSays(t, "### Dixit: CODERS_STUCK")
	r = w.waitEnd(t, s)
	require.Equal(t, app.Finished, r.State, r.Detail)

	var journal []journalRecord
	for _, entry := range w.journal(t) {
		var rec journalRecord
		require.NoError(t, json.Unmarshal([]byte(entry), &rec))
		journal = append(journal, rec)
	}
	mu.Lock()
	defer mu.Unlock()
	// Besides the protocol's steps: the check of the base revision before the run, and
	// the comparison of the implementations at each stop.
	var protocol []dispatched
	others := 0
	for _, d := range all {
		if slices.Contains(d.tests, "preflight") || d.journal == len(journal) || journal[d.journal].Effect != "judge" {
			others++
			continue
		}
		protocol = append(protocol, d)
	}
	return perRound(t, journal, []string{"ivy", "jun", "kai"}, protocol), others
}

// localJournalLength is how many entries the journal of run on the server's disk has.
func localJournalLength(state, run string) (int, error) {
	var found []string
	err := filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "workshop.git" {
			found = append(found, p)
			return filepath.SkipDir
		}
		return err
	})
	if err != nil || len(found) != 1 {
		return 0, fmt.Errorf("the run's workshop under %s: %v (found %v)", state, err, found)
	}
	ws, err := gitstate.Open(found[0])
	if err != nil {
		return 0, err
	}
	j, err := ws.Journal("refs/dixit/" + run + "/journal")
	if err != nil {
		return 0, err
	}
	entries, err := j.Entries()
	return len(entries), err
}

// batchTests are the ids of the tests a dispatch's batch holds.
func batchTests(repo, ref, dir string) ([]string, error) {
	snap, err := gitstate.ReadRevision(repo, ref)
	if err != nil {
		return nil, err
	}
	if err := snap.WriteTo(dir); err != nil {
		return nil, err
	}
	_, tests, err := classify.ReadBatch(filepath.Join(dir, "batch.json"))
	var ids []string
	for _, test := range tests {
		ids = append(ids, test.ID)
	}
	return ids, err
}
