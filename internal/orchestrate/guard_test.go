package orchestrate_test

import (
	"context"
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
