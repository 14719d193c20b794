package orchestrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// countingJudge counts Judge.Run calls, as the Actions judge counts workflow runs.
type countingJudge struct {
	ci.Judge
	mu    sync.Mutex
	sizes []int // jobs per call
}

func (j *countingJudge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	j.mu.Lock()
	j.sizes = append(j.sizes, len(jobs))
	j.mu.Unlock()
	time.Sleep(time.Millisecond) // the agents' effects reach the journal interleaved
	return j.Judge.Run(ctx, reruns, jobs)
}

func (j *countingJudge) calls() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.sizes)
}

// judgeSteps reads a journal: its judge effects, and its steps, the judge calls a run
// needs when each phase's agents share one per step (the phase's most judge effects of
// one agent) and the protocol's own effects each take one.
func judgeSteps(t *testing.T, records [][]byte) (effects, steps int) {
	t.Helper()
	perLane := map[int]map[string]int{} // phase → lane → judge effects
	for _, data := range records {
		var rec struct {
			Effect, Lane string
			Phase        int
		}
		require.NoError(t, json.Unmarshal(data, &rec))
		if rec.Effect != "judge" {
			continue
		}
		effects++
		if rec.Lane == "" {
			steps++
			continue
		}
		if perLane[rec.Phase] == nil {
			perLane[rec.Phase] = map[string]int{}
		}
		perLane[rec.Phase][rec.Lane]++
	}
	for _, lanes := range perLane {
		most := 0
		for _, n := range lanes {
			most = max(most, n)
		}
		steps += most
	}
	return effects, steps
}

// The agents of a phase share one judge call per step: 5 coders and 3 testers over three
// rounds make one call per step instead of one per agent, and the run is the one its
// agents make one after the other (parallel_agents 1, a call each): same outcome, tests,
// numbers, events and verdicts.
func TestAPhaseSharesOneJudgeCallPerStep(t *testing.T) {
	one := fiveByThree(config.Budget{})
	one.width = 1
	alone := &countingJudge{}
	want := one.playWith(t, &orchestratetest.Journal{}, nil, func(j ci.Judge) ci.Judge { alone.Judge = j; return alone })
	require.NoError(t, want.err)
	effects, _ := judgeSteps(t, want.journal.Records)
	assert.Equal(t, effects, alone.calls(), "one agent at a time: a call per judge effect")

	batched := &countingJudge{}
	got := fiveByThree(config.Budget{}).playWith(t, &orchestratetest.Journal{}, nil,
		func(j ci.Judge) ci.Judge { batched.Judge = j; return batched })
	require.NoError(t, got.err)
	effects, steps := judgeSteps(t, got.journal.Records)
	assert.Equal(t, steps, batched.calls(), "a call per step")
	assert.Less(t, steps, effects, "the scenario has steps where several agents ask the judge")
	assert.Equal(t, want.calls.Jobs, got.calls.Jobs, "the same jobs are judged")
	assert.Equal(t, want.res.Outcome, got.res.Outcome)
	assert.Equal(t, want.res.Vetted, got.res.Vetted)
	assert.Equal(t, want.res.Proposals, got.res.Proposals)
	assert.Equal(t, story(want.res.Events), story(got.res.Events))
	assert.Equal(t, want.res.Spend.Tokens(), got.res.Spend.Tokens())
	t.Logf("judge calls: %d one agent at a time, %d with every agent of a phase at once (%d judge effects, %d steps)",
		alone.calls(), batched.calls(), effects, steps)
}

// slowTester takes its time over each proposal, as a model with a long answer does.
type slowTester struct {
	*orchestratetest.Tester
	delay time.Duration
}

func (s slowTester) Propose(ctx context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	select {
	case <-time.After(s.delay):
		return s.Tester.Propose(ctx, turn)
	case <-ctx.Done():
		return orchestrate.Proposal{}, ctx.Err()
	}
}

// testersAtDifferentSpeeds is 3 coders and 3 testers, the third much slower than the
// others; every proposal is too easy, so each tester proposes twice per attempt.
func testersAtDifferentSpeeds(judge ci.Judge, calls *orchestratetest.Calls) orchestrate.Deps {
	deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: &orchestratetest.Journal{}, Judge: judge}
	for i := range 3 {
		deps.Coders = append(deps.Coders, orchestratetest.NewCoder(fmt.Sprintf("c%d", i+1), 1, calls))
	}
	for i, delay := range []time.Duration{0, 5 * time.Millisecond, 60 * time.Millisecond} {
		tt := orchestratetest.NewTester(fmt.Sprintf("t%d", i+1), calls, "easy", "easy")
		deps.Testers = append(deps.Testers, slowTester{tt, delay})
	}
	return deps
}

// A tester that asks the judge first waits for the slowest one: each classification
// step of the testers' phase is one call with every tester's proposal in it.
func TestTheFirstTesterWaitsForTheSlowestToClassify(t *testing.T) {
	calls := &orchestratetest.Calls{}
	judge := &countingJudge{Judge: orchestratetest.Judge{Calls: calls, Passes: func(test, tree string) bool { return true }}}
	cfg := defaultSettings(3, 3)
	cfg.MaxTesterRetries = 1
	run, err := orchestrate.New(cfg, testersAtDifferentSpeeds(judge, calls))
	require.NoError(t, err)
	res, err := run.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, orchestrate.TestersExhausted, res.Outcome)
	assert.Equal(t, []int{9, 9}, judge.sizes, "two steps, each 3 proposals × 3 coders")
}

// failingJudge fails every call, as a judge whose workflow cannot be dispatched.
type failingJudge struct{}

func (failingJudge) Run(context.Context, int, []ci.Job) ([]ci.Verdict, error) {
	return nil, errors.New("dispatch dixit-classify.yml: 404 Not Found")
}

// When a shared call fails, every agent in it fails with the judge's error, as each
// would have with a call of its own, and the run says why.
func TestAFailedSharedCallFailsEveryAgentInIt(t *testing.T) {
	calls := &orchestratetest.Calls{}
	journal := &orchestratetest.Journal{}
	deps := testersAtDifferentSpeeds(failingJudge{}, calls)
	deps.Journal = journal
	run, err := orchestrate.New(defaultSettings(3, 3), deps)
	require.NoError(t, err)
	_, err = run.Execute(context.Background())
	require.ErrorContains(t, err, "judge: dispatch dixit-classify.yml: 404 Not Found")
	effects, _ := judgeSteps(t, journal.Records)
	assert.Zero(t, effects, "no verdict of a failed call is journalled")
	assert.Equal(t, 3, calls.Props, "each tester proposed once")
}

// notifyingTester says when it has proposed.
type notifyingTester struct {
	orchestrate.Tester
	proposed chan<- string
}

func (n notifyingTester) Propose(ctx context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	p, err := n.Tester.Propose(ctx, turn)
	n.proposed <- n.Name()
	return p, err
}

// stuckTester never answers: its model hangs until the run is cancelled.
type stuckTester struct{ *orchestratetest.Tester }

func (stuckTester) Propose(ctx context.Context, _ orchestrate.Turn) (orchestrate.Proposal, error) {
	<-ctx.Done()
	return orchestrate.Proposal{}, ctx.Err()
}

// Cancelling a run while agents wait for their batch ends it at once: the waiting agents
// give up, and the judge is not asked for verdicts nobody will use.
func TestACancelledRunDoesNotJudgeTheWaitingAgents(t *testing.T) {
	calls := &orchestratetest.Calls{}
	judge := &countingJudge{Judge: orchestratetest.Judge{Calls: calls, Passes: func(test, tree string) bool { return true }}}
	deps := testersAtDifferentSpeeds(judge, calls)
	proposed := make(chan string, 2)
	for i := range 2 {
		deps.Testers[i] = notifyingTester{deps.Testers[i], proposed}
	}
	deps.Testers[2] = stuckTester{orchestratetest.NewTester("t3", calls)}
	run, err := orchestrate.New(defaultSettings(3, 3), deps)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run.Execute(ctx)
		done <- err
	}()
	<-proposed
	<-proposed
	time.Sleep(20 * time.Millisecond) // t1 and t2 wait for t3
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not end after it was cancelled")
	}
	assert.Zero(t, judge.calls(), "no batch was sent")
}
