package orchestrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// A tampered verdict (ci.Tampered) means the judge's own checks in the test's process did
// not come out as they must: something in that process changed what the runner reports.
// The coder whose job it was has no vote on that test and is never picked
// (internal/report, internal/pick), unless most coders came out tampered on the same
// test: then the test itself ends its process or rewrites its report, and it is rejected
// (TOO_HARD) instead.

// Tamper is the evidence that a coder's job came out tampered: the first test it did, and
// the judge's words.
type Tamper struct {
	Test     string `json:"test"`
	Evidence string `json:"evidence"`
}

// TamperCount counts a classification's tampered cells and the coders judged (prepared),
// and says whether they blame the test rather than the coders: most of them came out
// tampered on it.
func TamperCount(cells []Cell) (tampered, judged int, blamed bool) {
	for _, c := range cells {
		switch c.Outcome {
		case string(ci.PrepareFailed):
			continue
		case string(ci.Tampered):
			tampered++
		}
		judged++
	}
	return tampered, judged, tampered*2 > judged
}

// TamperEvidence is the line of a tampered verdict's output that says why, without the
// judge's "[dixit] " mark; the output's tail when no line says.
func TamperEvidence(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "tampered: ") {
			return strings.TrimPrefix(strings.TrimSpace(lines[i]), "[dixit] ")
		}
	}
	return tail(output, 300)
}

// noteTampered emits an EvTampered event for each cell whose coder came out tampered, in
// the turn of the agent named lane (events must stay in their lane's order).
func (r *Run) noteTampered(ctx context.Context, lane string, cells []Cell) {
	for _, c := range cells {
		if c.Outcome == string(ci.Tampered) {
			r.emit(ctx, Event{Kind: EvTampered, Agent: lane, Coder: c.Coder, Test: c.Test, Detail: TamperEvidence(c.Output)})
		}
	}
}

// tamperOf is the first evidence that the coder named tampered in this run, nil if none.
// It reads the events, which the phases keep in order, rather than state the lanes would
// share.
func (r *Run) tamperOf(name string) *Tamper {
	for _, ev := range r.events {
		if ev.Kind == EvTampered && ev.Coder == name {
			return &Tamper{Test: ev.Test, Evidence: ev.Detail}
		}
	}
	return nil
}

// stuckTampered is the evidence against a stuck coder, nil when there is none (or no
// stuck coder): the human who answers should know it is no ordinary failure.
func (r *Run) stuckTampered(stuck *coderSlot) *Tamper {
	if stuck == nil {
		return nil
	}
	return r.tamperOf(stuck.Name())
}

// The other protocols (single, critics, tdg, blind) hold a tampered coder out too: it is
// named (noteTampered), never accepted (accept, tdg's choice), and when no coder is left
// that could be, the run stops (allTampered). What coders and advisors read of a tampered
// run is a summary (seenByCoder), never the judge's line, which names its own checks.

// seenByCoder is what an agent may read of a verdict's output: a tampered run's names the
// judge's own checks, which must stay unknown to the code under test.
func seenByCoder(v ci.Verdict) string {
	if v.Outcome == ci.Tampered {
		return tamperedRun
	}
	return v.Output
}

// allTampered says whether every coder has tamper evidence, and the reason to stop then: no
// work of theirs may be accepted, and more iterations would only pay for more of it.
func (r *Run) allTampered() (string, bool) {
	var named []string
	for _, c := range r.coders {
		t := r.tamperOf(c.Name())
		if t == nil {
			return "", false
		}
		named = append(named, tamperReason(c.Name(), t))
	}
	if len(named) == 1 {
		return named[0] + ": its work is not accepted", true
	}
	return "every coder tampered, so no work is accepted: " + strings.Join(named, "; "), true
}

// tamperReason names a coder that tampered, with the judge's evidence, for the human.
func tamperReason(coder string, t *Tamper) string {
	return fmt.Sprintf("coder %s tampered with the test runner (test %s: %s)", coder, t.Test, t.Evidence)
}

// blamedColumns says, for each test of a batch of cells (one row a coder, one column a
// test), whether most coders came out tampered on it: then the test ends its own process
// or rewrites its report, and no coder is named for it. With a single coder judged there
// is no majority to tell the test from the coder, and the coder is named.
func blamedColumns(rows [][]Cell, tests int) []bool {
	blamed := make([]bool, tests)
	for j := range blamed {
		column := make([]Cell, len(rows))
		for i, row := range rows {
			column[i] = row[j]
		}
		_, judged, most := TamperCount(column)
		blamed[j] = most && judged > 1
	}
	return blamed
}
