package orchestrate_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// existingTests is the repository's own suite, as a guard sees it: the trees named
// break the tests named.
type existingTests struct {
	mu     sync.Mutex
	breaks map[string][]string // tree → tests it breaks
	ran    []string            // trees checked, in order
}

func (e *existingTests) Regressions(_ context.Context, _ string, tree ci.Tree) ([]ci.Regression, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ran = append(e.ran, tree.Hash())
	var out []ci.Regression
	for _, name := range e.breaks[tree.Hash()] {
		out = append(out, ci.Regression{Test: name, Reason: "fails: want 3, got 4"})
	}
	return out, nil
}

// A coder that breaks an existing test is told which one and why, must fix it like a
// failing vetted test, and a resumed run tells it the same without running the suite
// again.
func TestACoderThatBreaksAnExistingTestIsToldAndFixesIt(t *testing.T) {
	guard := &existingTests{breaks: map[string][]string{"c2@1": {"example.com/m/pkg.TestOld"}}}
	s := scenario{
		versions: []int{1, 2, 1, 1, 1},
		testers:  [][]string{{"T1"}},
		passes:   map[string][]string{"T1": {"c1@1", "c2@1", "c2@2", "c3@1", "c4@1"}},
		guard:    guard,
	}
	journal := &orchestratetest.Journal{}
	p := s.play(t, journal, nil)
	require.NoError(t, p.err)

	c2 := p.coders[1]
	told := strings.Join(c2.History, "\n")
	assert.Contains(t, told, "Your change breaks tests the repository already had")
	assert.Contains(t, told, "- example.com/m/pkg.TestOld: fails: want 3, got 4")
	for _, c := range p.coders {
		if c.Name() != "c2" {
			assert.NotContains(t, strings.Join(c.History, "\n"), "breaks tests", "%s broke nothing", c.Name())
		}
	}
	var final orchestrate.CoderState
	for _, c := range p.res.Coders {
		if c.Name == "c2" {
			final = c
		}
	}
	assert.Equal(t, "c2@2", final.Commit, "c2 fixed it")
	assert.Empty(t, final.Breaks)
	var broke []string
	for _, ev := range p.res.Events {
		if ev.Kind == orchestrate.EvExisting && strings.HasPrefix(ev.Detail, "breaks") {
			broke = append(broke, ev.Agent+": "+ev.Detail)
		}
	}
	assert.Equal(t, []string{"c2: breaks example.com/m/pkg.TestOld"}, broke)

	checked := len(guard.ran)
	again := s.play(t, journal, nil)
	require.NoError(t, again.err)
	assert.Len(t, guard.ran, checked, "a resumed run reads the checks from the journal")
	assert.Equal(t, story(p.res.Events), story(again.res.Events))
}

// unpreparedJudge answers prepare_failed for the trees named: their dependencies do not
// install.
type unpreparedJudge struct {
	inner ci.Judge
	trees map[string]bool
}

func (j unpreparedJudge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	vs, err := j.inner.Run(ctx, reruns, jobs)
	for i, job := range jobs {
		if err == nil && j.trees[job.Tree.Hash()] {
			vs[i] = ci.Verdict{Outcome: ci.PrepareFailed, Output: "go: example.com/nope@v1.0.0: reading https://proxy.golang.org/example.com/nope/@v/v1.0.0.mod: 404 Not Found"}
		}
	}
	return vs, err
}

// A coder whose dependencies do not install has no vote on a test (it says nothing
// about the test), and is told that its dependencies failed, with the installer's words,
// rather than that tests fail.
func TestACoderWhoseDependenciesDoNotInstallHasNoVoteAndIsTold(t *testing.T) {
	s := scenario{
		versions: []int{1, 1, 1, 1, 2},
		testers:  [][]string{{"T1"}},
		// c5@1 cannot be prepared; on the four others T1 passes 3 of 4: IDEAL. Were
		// c5 counted as failing, it would still be IDEAL, so the vote is read from the
		// event: 3 passes of 4 voters.
		passes: map[string][]string{"T1": {"c1@1", "c2@1", "c3@1", "c5@2"}},
	}
	p := s.playWith(t, &orchestratetest.Journal{}, nil, func(j ci.Judge) ci.Judge {
		return unpreparedJudge{inner: j, trees: map[string]bool{"c5@1": true}}
	})
	require.NoError(t, p.err)
	var classified *orchestrate.Event
	for i, ev := range p.res.Events {
		if ev.Kind == orchestrate.EvClassify && ev.Test == "t1-1" {
			classified = &p.res.Events[i]
		}
	}
	require.NotNil(t, classified)
	assert.Equal(t, orchestrate.Ideal, classified.Class)
	require.Len(t, p.res.Vetted, 1)
	assert.Equal(t, []string{"c4"}, p.res.Vetted[0].FailedBy, "c5 neither passed nor failed it")
	told := strings.Join(p.coders[4].History, "\n")
	assert.Contains(t, told, "installing its dependencies failed, so no test ran")
	assert.Contains(t, told, "404 Not Found")
	assert.NotContains(t, told, "Test 1 fails")
}

// A tree whose dependencies do not install breaks the existing tests only in that they
// cannot run: the coder hears that once, with the installer's words.
func TestATreeThatCannotBePreparedIsToldSoByTheGuard(t *testing.T) {
	guard := &unpreparedGuard{tree: "c2@1"}
	s := scenario{
		versions: []int{1, 2, 1, 1, 1},
		testers:  [][]string{{"T1"}},
		passes:   map[string][]string{"T1": {"c1@1", "c2@2", "c3@1", "c4@1"}},
		guard:    guard,
	}
	p := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	told := strings.Join(p.coders[1].History, "\n")
	assert.Contains(t, told, "installing its dependencies failed, so no test ran")
	assert.Contains(t, told, "403 Forbidden")
	assert.NotContains(t, told, "breaks tests the repository already had")
}

type unpreparedGuard struct{ tree string }

func (g *unpreparedGuard) Regressions(_ context.Context, _ string, tree ci.Tree) ([]ci.Regression, error) {
	if tree.Hash() == g.tree {
		return []ci.Regression{{Reason: "go: github.com/gobuffalo/segments@v0.1.0: 403 Forbidden"}}, nil
	}
	return nil, nil
}

// An existing test that most first solutions break checks what the spec asks to change:
// it is retired for the run, said once, and no coder is held to it. One that a single
// coder breaks stays, and that coder is told.
func TestAnExistingTestTheSpecChangesIsRetiredByTheFirstSolutions(t *testing.T) {
	const wrap, old = "example.com/m/pkg.TestAddWraps", "example.com/m/pkg.TestOld"
	guard := &existingTests{breaks: map[string][]string{
		"c1@1": {wrap}, "c2@1": {wrap, old}, "c3@1": {wrap}, "c4@1": {wrap}, "c2@2": {wrap},
	}}
	s := scenario{
		versions: []int{1, 2, 1, 1, 1},
		testers:  [][]string{{"T1"}},
		passes:   map[string][]string{"T1": {"c1@1", "c2@2", "c3@1", "c4@1"}},
		guard:    guard,
	}
	p := s.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, p.err)
	assert.Equal(t, []string{wrap}, p.res.Retired)
	var said []string
	for _, ev := range p.res.Events {
		if ev.Kind == orchestrate.EvExisting && ev.Detail != "keeps every existing test passing" {
			said = append(said, strings.TrimSpace(ev.Agent+" "+ev.Detail))
		}
	}
	assert.Equal(t, []string{
		"the spec changes what " + wrap + " checks: 4 of 5 first solutions break it, so it guards nothing in this run",
		"c2 breaks " + old,
	}, said)
	for _, c := range p.coders {
		assert.NotContains(t, strings.Join(c.History, "\n"), "TestAddWraps", "%s is not held to a retired test", c.Name())
	}
	assert.Contains(t, strings.Join(p.coders[1].History, "\n"), old)
}

// Cut after every effect of a guarded run, the vote among them, and resumed by a new
// process: the same end, the same retired tests, and no tree's existing tests run twice.
func TestAGuardedRunInterruptedAnywhereEndsTheSame(t *testing.T) {
	const wrap, old = "m/p.TestAddWraps", "m/p.TestOld"
	breaks := map[string][]string{"c1@1": {wrap}, "c2@1": {wrap, old}, "c3@1": {wrap}, "c4@1": {wrap}, "c2@2": {wrap}}
	play := func(journal *orchestratetest.Journal, guard *existingTests, after func(int) error) played {
		s := scenario{
			versions: []int{1, 2, 1, 1, 1},
			testers:  [][]string{{"T1"}},
			passes:   map[string][]string{"T1": {"c1@1", "c2@2", "c3@1", "c4@1"}},
			guard:    guard,
		}
		return s.play(t, journal, after)
	}
	wholeGuard := &existingTests{breaks: breaks}
	whole := play(&orchestratetest.Journal{}, wholeGuard, nil)
	require.NoError(t, whole.err)
	effects := len(whole.journal.Records)
	for cut := 1; cut < effects; cut++ {
		journal := &orchestratetest.Journal{}
		g1 := &existingTests{breaks: breaks}
		first := play(journal, g1, func(seq int) error {
			if seq == cut {
				return orchestrate.ErrInterrupted
			}
			return nil
		})
		require.ErrorIs(t, first.err, orchestrate.ErrInterrupted)
		g2 := &existingTests{breaks: breaks}
		second := play(journal, g2, nil)
		require.NoError(t, second.err, "cut %d", cut)
		assert.Equal(t, whole.res.Retired, second.res.Retired, "cut %d", cut)
		assert.Equal(t, whole.res.Coders, second.res.Coders, "cut %d", cut)
		assert.Equal(t, orchestratetest.Unflagged(whole.res.Events), orchestratetest.Unflagged(second.res.Events), "cut %d", cut)
		// Checks journalled before the cut never run again: the resumed run runs exactly
		// those it journals itself.
		assert.Equal(t, existingIn(t, journal.Records[cut:]), len(g2.ran), "cut %d", cut)
	}
}

// existingIn counts the journalled checks of the existing tests.
func existingIn(t *testing.T, records [][]byte) int {
	t.Helper()
	n := 0
	for _, r := range records {
		var rec struct{ Effect string }
		require.NoError(t, json.Unmarshal(r, &rec))
		if rec.Effect == "existing" {
			n++
		}
	}
	return n
}
