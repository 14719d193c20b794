package orchestrate_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// watcher notes the work it hears of, and how much of it is still running; the agents
// of a phase work at once, so it hears of them at once.
type watcher struct {
	mu    sync.Mutex
	began []string
	open  int
}

func (w *watcher) Event(context.Context, orchestrate.Event) {}

func (w *watcher) Begin(_ context.Context, work orchestrate.Work) func() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open++
	w.began = append(w.began, fmt.Sprintf("%s %s %d (%d/%d)", work.Kind, work.Agent, work.Draw, work.Place, work.Of))
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.open--
	}
}

// A display learns of each solve and proposal as it begins, with the coder's place, and of
// nothing a resumed run replays from its journal.
func TestWatcherHearsOfLiveWorkOnly(t *testing.T) {
	play := func(journal *orchestratetest.Journal) *watcher {
		w := &watcher{}
		calls := &orchestratetest.Calls{}
		deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: journal, Reporter: w,
			Judge: orchestratetest.Judge{Calls: calls, Passes: func(test, tree string) bool { return tree != "c2@1" }}}
		for i := range 3 {
			deps.Coders = append(deps.Coders, orchestratetest.NewCoder(fmt.Sprintf("c%d", i+1), 1, calls))
		}
		deps.Testers = append(deps.Testers, orchestratetest.NewTester("t1", calls, "split"))
		run, err := orchestrate.New(defaultSettings(3, 1), deps)
		require.NoError(t, err)
		_, err = run.Execute(context.Background())
		require.NoError(t, err)
		return w
	}
	journal := &orchestratetest.Journal{}
	first := play(journal)
	assert.ElementsMatch(t, []string{"solve c1 1 (1/3)", "solve c2 1 (2/3)", "solve c3 1 (3/3)"}, first.began[:3], "the coders solve at once")
	assert.Equal(t, "propose t1 1 (0/0)", first.began[3], "the testers' phase begins once every coder has solved")
	assert.Zero(t, first.open, "every piece of work ends")

	again := play(journal)
	assert.Empty(t, again.began, "a resumed run replays; nothing runs")
}
