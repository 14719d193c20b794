package runfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// InvocationsFile lists, a line each, the invocations that worked on a run: what a
// report adds up so that it speaks for the whole run, not for the last start.
const InvocationsFile = "invocations.jsonl"

// Invocation is one process's work on a run. A run cut, stopped for a human or resumed has
// one per start; each is recorded when it ends, however it ended.
type Invocation struct {
	// Vet marks a patch judged (bot vet): its work counts in its own vet report, never
	// in the run's.
	Vet            bool      `json:"vet,omitempty"`
	Started        time.Time `json:"started"`
	WallSeconds    float64   `json:"wall_seconds"`
	Judge          Judge     `json:"judge"`
	JournalSeconds float64   `json:"journal_seconds"`
}

// ReadInvocations reads the invocations recorded in a run's directory; none when there
// is no file yet. A line cut short by a killed process is skipped: the rest still adds up.
func ReadInvocations(dir string) ([]Invocation, error) {
	f, err := os.Open(filepath.Join(dir, InvocationsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the run's invocations: %w", err)
	}
	defer f.Close()
	var out []Invocation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var inv Invocation
		if json.Unmarshal(sc.Bytes(), &inv) == nil {
			out = append(out, inv)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the run's invocations: %w", err)
	}
	return out, nil
}

// AppendInvocation records inv in a run's directory.
func AppendInvocation(dir string, inv Invocation) error {
	line, err := json.Marshal(inv)
	if err != nil {
		return fmt.Errorf("record the invocation: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, InvocationsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("record the invocation: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("record the invocation: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("record the invocation: %w", err)
	}
	return nil
}

// Account sets the summary's wall time, judge work and journal time to the sum of invs,
// the last of which is the invocation writing it (its sandbox is the one named).
func (s *Summary) Account(invs []Invocation) {
	var j Judge
	wall, journal := 0.0, 0.0
	for _, inv := range invs {
		j.Executions += inv.Judge.Executions
		j.Runs += inv.Judge.Runs
		j.CacheHits += inv.Judge.CacheHits
		j.Prepares += inv.Judge.Prepares
		j.PrepareSeconds += inv.Judge.PrepareSeconds
		j.Seconds += inv.Judge.Seconds
		j.ActionsMinutes += inv.Judge.ActionsMinutes
		j.Sandbox = inv.Judge.Sandbox
		wall += inv.WallSeconds
		journal += inv.JournalSeconds
	}
	s.Judge, s.WallSeconds, s.Journal.Seconds, s.Invocations = j, wall, journal, len(invs)
}
