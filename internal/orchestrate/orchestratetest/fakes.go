// Package orchestratetest has hand-written fakes of the protocol's side effects for unit
// tests of the orchestrator: coders whose versions are labels, testers whose proposals
// are strings, a judge that looks verdicts up in a table, and an in-memory journal.
package orchestratetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Calls counts the paid effects, so tests can prove none is repeated.
type Calls struct {
	mu      sync.Mutex
	Solves  int
	Props   int
	Answers int
	Judged  int // Judge.Run calls: a phase's agents share one per step (batch.go)
	Jobs    int // jobs judged, across all calls
}

func (c *Calls) add(f *int) {
	c.mu.Lock()
	*f++
	c.mu.Unlock()
}

// agent keeps a history; a checkpoint carries the whole state, so a fresh process (a new
// fake) can restore it, as a real agent restores from the workshop.
type agent struct {
	name    string
	History []string
	version int
	calls   *Calls
	tokens  int // what its replies cost so far: 100 prompt and 10 completion tokens each
}

// Spent makes fakes metered agents, as live LLM agents are.
func (a *agent) Spent() (int, int) { return a.tokens * 10, a.tokens }

type snapshot struct {
	History []string `json:"history"`
	Version int      `json:"version"`
}

func newAgent(name string, calls *Calls) agent { return agent{name: name, calls: calls} }

func (a *agent) Name() string { return a.name }

func (a *agent) Tell(_ context.Context, m string) error {
	a.History = append(a.History, "user: "+m)
	return nil
}

func (a *agent) Save(context.Context) (orchestrate.Checkpoint, error) {
	data, err := json.Marshal(snapshot{History: a.History, Version: a.version})
	return orchestrate.Checkpoint(data), err
}

func (a *agent) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	var s snapshot
	if err := json.Unmarshal([]byte(cp), &s); err != nil {
		return fmt.Errorf("bad checkpoint: %w", err)
	}
	a.History, a.version = s.History, s.Version
	return nil
}

// Coder yields version k on its k-th solve (the last repeats); its commits are "name@k".
type Coder struct {
	agent
	Versions int
}

func NewCoder(name string, versions int, calls *Calls) *Coder {
	return &Coder{agent: newAgent(name, calls), Versions: versions}
}

func (c *Coder) Solve(_ context.Context, t orchestrate.Turn) (string, error) {
	c.calls.add(&c.calls.Solves)
	c.tokens += 10
	c.version = min(t.Draw, c.Versions)
	c.History = append(c.History, "user: "+t.Message, fmt.Sprintf("coder: version %d", c.version))
	return c.Workspace(context.Background())
}

func (c *Coder) Workspace(context.Context) (string, error) {
	return fmt.Sprintf("%s@%d", c.name, c.version), nil
}

// Tester yields Proposals[k-1] on its k-th request, and nothing after the last.
type Tester struct {
	agent
	Proposals []string
}

func NewTester(name string, calls *Calls, proposals ...string) *Tester {
	return &Tester{agent: newAgent(name, calls), Proposals: proposals}
}

func (t *Tester) Propose(_ context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	t.calls.add(&t.calls.Props)
	t.tokens += 10
	t.History = append(t.History, "user: "+turn.Message)
	if turn.Draw > len(t.Proposals) {
		return orchestrate.Proposal{None: true}, nil
	}
	p := t.Proposals[turn.Draw-1]
	t.History = append(t.History, "tester: "+p)
	return orchestrate.Proposal{Content: []byte(p)}, nil
}

// Store maps a commit "name@k" to a tree with the same hash; FilesOf gives the files of
// a commit (a coder's own tests, for the protocols that run them).
type Store struct {
	FilesOf map[string][]orchestrate.File
}

type tree string

func (t tree) Hash() string                                          { return string(t) }
func (t tree) WriteTo(string) error                                  { return nil }
func (Store) Tree(_ context.Context, commit string) (ci.Tree, error) { return tree(commit), nil }

func (s Store) Files(_ context.Context, commit string) ([]orchestrate.File, error) {
	return s.FilesOf[commit], nil
}

// Advisor gives Answers[k-1] on its k-th request; the last answer repeats.
type Advisor struct {
	agent
	Answers []string
}

func NewAdvisor(name string, calls *Calls, answers ...string) *Advisor {
	return &Advisor{agent: newAgent(name, calls), Answers: answers}
}

func (a *Advisor) Answer(_ context.Context, turn orchestrate.Turn) (string, error) {
	a.calls.add(&a.calls.Answers)
	a.tokens += 10
	a.History = append(a.History, "user: "+turn.Message)
	return a.Answers[min(turn.Draw, len(a.Answers))-1], nil
}

// Judge passes test content T on tree "name@k" when Passes(T, "name@k") says so.
type Judge struct {
	Passes func(test, tree string) bool
	Calls  *Calls
	// Output, when set, is what a failing run printed.
	Output func(test, tree string) string
}

func (j Judge) Run(_ context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	j.Calls.add(&j.Calls.Judged)
	for range jobs {
		j.Calls.add(&j.Calls.Jobs)
	}
	out := make([]ci.Verdict, len(jobs))
	for i, job := range jobs {
		if j.Passes(string(job.Test.Content), job.Tree.Hash()) {
			out[i] = ci.Verdict{Outcome: ci.Pass, Runs: reruns}
		} else {
			out[i] = ci.Verdict{Outcome: ci.Fail, Runs: 1}
			if j.Output != nil {
				out[i].Output = j.Output(string(job.Test.Content), job.Tree.Hash())
			}
		}
	}
	return out, nil
}

// Journal is an in-memory journal.
type Journal struct{ Records [][]byte }

func (j *Journal) Entries() ([][]byte, error) { return j.Records, nil }
func (j *Journal) Append(r []byte) error {
	j.Records = append(j.Records, append([]byte(nil), r...))
	return nil
}

// Unflagged returns events with their Replayed flag cleared, so a resumed run's events can
// be compared with an uninterrupted run's.
func Unflagged(events []orchestrate.Event) []orchestrate.Event {
	out := append([]orchestrate.Event(nil), events...)
	for i := range out {
		out[i].Replayed = false
	}
	return out
}
