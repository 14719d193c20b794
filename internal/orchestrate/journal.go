package orchestrate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci"
)

// record is one journalled effect. Effects are replayed in order: the n-th effect a
// restarted run asks for must be the n-th one recorded, or the run refuses to go on.
type record struct {
	Seq        int          `json:"seq"`
	Effect     string       `json:"effect"` // solve | propose | answer | judge | decide
	Agent      string       `json:"agent,omitempty"`
	Draw       int          `json:"draw,omitempty"`
	Key        string       `json:"key,omitempty"`        // judge: digest of the jobs
	Checkpoint Checkpoint   `json:"checkpoint,omitempty"` // agent state after the effect
	Commit     string       `json:"commit,omitempty"`     // solve: the workspace commit
	Proposal   *Proposal    `json:"proposal,omitempty"`   // propose
	Answer     *string      `json:"answer,omitempty"`     // answer
	Verdicts   []ci.Verdict `json:"verdicts,omitempty"`   // judge
	// Regressions are the existing tests a coder's tree breaks (effect "existing").
	Regressions []ci.Regression `json:"regressions,omitempty"`
	Decision    *Decision       `json:"decision,omitempty"` // decide
	Refused     string          `json:"refused,omitempty"`  // decide: why the decision did not fit
	Spend       Spend           `json:"spend"`              // tokens and time the effect cost
	// Lane is the agent whose turn in a parallel phase asked for the effect (parallel.go):
	// a resumed phase replays each agent's effects in that agent's order, whatever order
	// the agents' effects reached the journal in. Empty for the protocol's own steps, and
	// in journals written before phases ran in parallel.
	Lane string `json:"lane,omitempty"`
	// Width is how many agents of the phase could run at once (parallel_agents): a
	// resumed phase keeps it, so its budget checks fall where they fell.
	Width int `json:"width,omitempty"`
	// Phase counts the run's parallel phases, from 1: what a phase cost is read from
	// the journal (CriticalPath).
	Phase int `json:"phase,omitempty"`
}

// ErrInterrupted is returned when the AfterAppend hook stops a run (tests use it to cut a
// run at every effect boundary).
var ErrInterrupted = errors.New("run interrupted")

type journalState struct {
	journal     Journal
	afterAppend func(seq int) error

	// mu guards what follows: the agents of a parallel phase ask for effects at once.
	mu       sync.Mutex
	recorded []record
	consumed []bool           // replayed (or appended) already
	byLane   map[string][]int // indexes of each lane's records, in journal order
	next     int              // index of the first record not consumed: the protocol's own cursor
	live     int              // effects performed in this process
	// legacy is set while a phase replays records without lanes: written one agent after
	// the other, they are replayed in journal order.
	legacy bool
	// stopped is the AfterAppend hook's error: nothing reaches the journal after it, as
	// after a kill.
	stopped error
	// failing is why a phase failed: its other agents start no new effect, but the ones
	// under way finish and are journalled, so their replies are not paid for again.
	failing error
}

func (j *journalState) load() error {
	raw, err := j.journal.Entries()
	if err != nil {
		return fmt.Errorf("load journal: %w", err)
	}
	j.byLane = map[string][]int{}
	for i, data := range raw {
		var rec record
		if err := json.Unmarshal(data, &rec); err != nil {
			return fmt.Errorf("journal entry %d is corrupt: %w", i+1, err)
		}
		if rec.Seq != i+1 {
			return fmt.Errorf("journal entry %d has sequence number %d", i+1, rec.Seq)
		}
		j.add(rec)
	}
	return nil
}

// add keeps a record read from or written to the journal.
func (j *journalState) add(rec record) {
	if rec.Lane != "" {
		j.byLane[rec.Lane] = append(j.byLane[rec.Lane], len(j.recorded))
	}
	j.recorded = append(j.recorded, rec)
	j.consumed = append(j.consumed, false)
}

func (j *journalState) replaying() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next < len(j.recorded)
}

// laneReplaying tells whether lane has recorded effects left to replay.
func (j *journalState) laneReplaying(lane string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.match(lane)
	return ok
}

// match finds the record the next effect of lane replays: the protocol's own effects (and
// a legacy phase's) take the first record not replayed yet, an agent's in a parallel
// phase the first of its lane's.
func (j *journalState) match(lane string) (int, bool) {
	if lane == "" || j.legacy {
		return j.next, j.next < len(j.recorded)
	}
	for _, i := range j.byLane[lane] {
		if !j.consumed[i] {
			return i, true
		}
	}
	return 0, false
}

func (j *journalState) consume(i int) {
	j.consumed[i] = true
	for j.next < len(j.recorded) && j.consumed[j.next] {
		j.next++
	}
}

// peek is the first record not replayed yet, if any: a phase reads its width there.
func (j *journalState) peek() (record, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.next < len(j.recorded) {
		return j.recorded[j.next], true
	}
	return record{}, false
}

func (j *journalState) setFailing(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.failing = err
}

func (j *journalState) setLegacy(on bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.legacy = on
}

// counts are the effects fed from the journal and performed now.
func (j *journalState) counts() (replayed, live int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.recorded) - j.live, j.live
}

// effect returns the recorded result of the next effect if the journal has it, and
// otherwise performs it and makes the result durable before returning it. It is safe
// for concurrent use by the lanes of a phase.
func (j *journalState) effect(want record, perform func() (record, error)) (record, bool, error) {
	if rec, ok, err := j.replay(want); ok || err != nil {
		return rec, ok, err
	}
	rec, err := perform()
	if err != nil {
		return record{}, false, err
	}
	return j.append(want, rec)
}

// replay returns the recorded result of want, if the journal has it.
func (j *journalState) replay(want record) (record, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	i, ok := j.match(want.Lane)
	if !ok && j.stopped != nil {
		return record{}, false, j.stopped
	}
	if !ok {
		return record{}, false, j.failing
	}
	rec := j.recorded[i]
	if rec.Effect != want.Effect || rec.Agent != want.Agent || rec.Draw != want.Draw || rec.Key != want.Key ||
		(!j.legacy && rec.Lane != want.Lane) {
		return record{}, false, fmt.Errorf("journal entry %d records %s %s (draw %d), but the run now asks for %s %s (draw %d): "+
			"the population or the settings changed since the run began; start a fresh run",
			rec.Seq, rec.Effect, rec.Agent, rec.Draw, want.Effect, want.Agent, want.Draw)
	}
	j.consume(i)
	return rec, true, nil
}

// append makes a performed effect durable. After the AfterAppend hook stopped the run
// nothing more is written, as after a kill.
func (j *journalState) append(want, rec record) (record, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.stopped != nil {
		return record{}, false, j.stopped
	}
	rec.Seq = len(j.recorded) + 1
	rec.Effect, rec.Agent, rec.Draw, rec.Key = want.Effect, want.Agent, want.Draw, want.Key
	rec.Lane, rec.Width, rec.Phase = want.Lane, want.Width, want.Phase
	data, err := json.Marshal(rec)
	if err != nil {
		return record{}, false, fmt.Errorf("encode journal entry %d: %w", rec.Seq, err)
	}
	if err := j.journal.Append(data); err != nil {
		return record{}, false, fmt.Errorf("journal %s of %s: %w", rec.Effect, rec.Agent, err)
	}
	j.add(rec)
	j.consume(len(j.recorded) - 1)
	j.live++
	if j.afterAppend != nil {
		if err := j.afterAppend(rec.Seq); err != nil {
			j.stopped = err
			return record{}, false, err
		}
	}
	return rec, false, nil
}

// jobsKey fingerprints a judge request so a replay can tell it asks for the same work.
func jobsKey(reruns int, jobs []ci.Job) string {
	h := sha256.New()
	fmt.Fprintf(h, "reruns=%d\n", reruns)
	for _, job := range jobs {
		t := sha256.Sum256(job.Test.Content)
		fmt.Fprintf(h, "%s %s %s %x\n", job.Coder, job.Tree.Hash(), job.Test.ID, t)
		if job.Test.Path != "" {
			// A test's place decides which package it builds in; keys of tests at the
			// default place stay as journals before named places wrote them.
			fmt.Fprintf(h, "at %s\n", job.Test.Path)
		}
		if len(job.Test.Select) > 0 {
			fmt.Fprintf(h, "select %s\n", strings.Join(job.Test.Select, " "))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
