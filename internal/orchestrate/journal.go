package orchestrate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

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
	Decision   *Decision    `json:"decision,omitempty"`   // decide
	Refused    string       `json:"refused,omitempty"`    // decide: why the decision did not fit
	Spend      Spend        `json:"spend"`                // tokens and time the effect cost
}

// ErrInterrupted is returned when the AfterAppend hook stops a run (tests use it to cut a
// run at every effect boundary).
var ErrInterrupted = errors.New("run interrupted")

type journalState struct {
	journal     Journal
	recorded    []record
	next        int // index of the next record to replay
	live        int // effects performed in this process
	afterAppend func(seq int) error
}

func (j *journalState) load() error {
	raw, err := j.journal.Entries()
	if err != nil {
		return fmt.Errorf("load journal: %w", err)
	}
	for i, data := range raw {
		var rec record
		if err := json.Unmarshal(data, &rec); err != nil {
			return fmt.Errorf("journal entry %d is corrupt: %w", i+1, err)
		}
		if rec.Seq != i+1 {
			return fmt.Errorf("journal entry %d has sequence number %d", i+1, rec.Seq)
		}
		j.recorded = append(j.recorded, rec)
	}
	return nil
}

func (j *journalState) replaying() bool { return j.next < len(j.recorded) }

// effect returns the recorded result of the next effect if the journal has it, and
// otherwise performs it and makes the result durable before returning it.
func (j *journalState) effect(want record, perform func() (record, error)) (record, bool, error) {
	if j.replaying() {
		rec := j.recorded[j.next]
		if rec.Effect != want.Effect || rec.Agent != want.Agent || rec.Draw != want.Draw || rec.Key != want.Key {
			return record{}, false, fmt.Errorf("journal entry %d records %s %s (draw %d), but the run now asks for %s %s (draw %d): "+
				"the population or the settings changed since the run began; start a fresh run",
				rec.Seq, rec.Effect, rec.Agent, rec.Draw, want.Effect, want.Agent, want.Draw)
		}
		j.next++
		return rec, true, nil
	}
	rec, err := perform()
	if err != nil {
		return record{}, false, err
	}
	rec.Seq = len(j.recorded) + 1
	rec.Effect, rec.Agent, rec.Draw, rec.Key = want.Effect, want.Agent, want.Draw, want.Key
	data, err := json.Marshal(rec)
	if err != nil {
		return record{}, false, fmt.Errorf("encode journal entry %d: %w", rec.Seq, err)
	}
	if err := j.journal.Append(data); err != nil {
		return record{}, false, fmt.Errorf("journal %s of %s: %w", rec.Effect, rec.Agent, err)
	}
	j.recorded = append(j.recorded, rec)
	j.next = len(j.recorded)
	j.live++
	if j.afterAppend != nil {
		if err := j.afterAppend(rec.Seq); err != nil {
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
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
