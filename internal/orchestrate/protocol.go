package orchestrate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// What the protocols other than dixit share: asking an advisor, and running a coder's
// own tests. Each protocol is in its own file (single.go, critics.go).

// answer asks an advisor for a reply: a journalled effect.
func (r *Run) answer(ctx context.Context, a *advisorSlot, message string) (string, error) {
	a.draws++
	want := record{Effect: "answer", Agent: a.Name(), Draw: a.draws}
	rec, replayed, err := r.effect(want, func() (record, error) {
		defer r.begin(ctx, Work{Kind: EvAnswer, Agent: a.Name(), Draw: a.draws})()
		return metered(a.Advisor, func() (record, error) {
			text, err := a.Answer(ctx, Turn{Message: message, Draw: a.draws})
			if err != nil {
				return record{}, fmt.Errorf("%s answer %d: %w", a.Name(), a.draws, err)
			}
			cp, err := a.Save(ctx)
			if err != nil {
				return record{}, fmt.Errorf("save %s: %w", a.Name(), err)
			}
			return record{Answer: &text, Checkpoint: cp}, nil
		})
	})
	if err != nil {
		return "", err
	}
	if replayed {
		if err := a.Restore(ctx, rec.Checkpoint); err != nil {
			return "", fmt.Errorf("replay %s answer %d: %w", a.Name(), a.draws, err)
		}
	}
	if rec.Answer == nil {
		return "", fmt.Errorf("journal entry %d: an answer without text", rec.Seq)
	}
	return *rec.Answer, r.charge(a.Name(), rec.Spend)
}

// ownFailure is one of a coder's own test files that did not pass, with what it printed:
// the coder wrote these tests, so it may see everything about them.
type ownFailure struct {
	Path    string
	Outcome ci.Outcome
	Output  string
}

// maxOwnTests bounds how many of its own test files a coder has run per check.
const maxOwnTests = 50

// runOwnTests runs each of the coder's own test files (the files the contract keeps out
// of the judge's copy) against its tree. It returns how many there were and which failed.
func (r *Run) runOwnTests(ctx context.Context, coder *coderSlot) (int, []ownFailure, error) {
	files, err := r.store.Files(ctx, coder.commit)
	if err != nil {
		return 0, nil, fmt.Errorf("files of coder %s: %w", coder.Name(), err)
	}
	var own []File
	for _, f := range files {
		if r.cfg.Test.Private(f.Path) {
			own = append(own, f)
		}
	}
	sort.Slice(own, func(i, j int) bool { return own[i].Path < own[j].Path })
	if len(own) > maxOwnTests {
		own = own[:maxOwnTests]
	}
	if len(own) == 0 {
		r.emit(ctx, Event{Kind: EvOwnTests, Agent: coder.Name(), Detail: "no test files"})
		return 0, nil, nil
	}
	tree, err := r.store.Tree(ctx, coder.commit)
	if err != nil {
		return 0, nil, fmt.Errorf("tree of coder %s: %w", coder.Name(), err)
	}
	jobs := make([]ci.Job, len(own))
	for i, f := range own {
		jobs[i] = ci.Job{Coder: coder.Name(), Tree: tree, Test: ci.Test{ID: fmt.Sprintf("own%d", i+1), Content: f.Content}}
	}
	verdicts, err := r.runJudge(ctx, "", jobs)
	if err != nil {
		return 0, nil, err
	}
	var failed []ownFailure
	cells := make([]Cell, len(verdicts))
	for i, v := range verdicts {
		cells[i] = newCell(coder.Name(), own[i].Path, v)
		if !v.Passed() {
			failed = append(failed, ownFailure{Path: own[i].Path, Outcome: v.Outcome, Output: seenByCoder(v)})
		}
	}
	r.emit(ctx, Event{Kind: EvOwnTests, Agent: coder.Name(), Passed: len(own) - len(failed), Cells: cells,
		Detail: fmt.Sprintf("%d of %d test files pass", len(own)-len(failed), len(own))})
	// The coder wrote these tests: a tampered run of them is its doing, whatever they hold.
	r.noteTampered(ctx, coder.Name(), cells)
	return len(own), failed, nil
}

// ownTestsFail tells a coder what its own tests reported, in full but for a tampered
// run's (seenByCoder).
func ownTestsFail(n int, failed []ownFailure) string {
	if n == 0 {
		return "No test files were found in your work. " + writeOwnTests
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your tests were run: %d of your %d test files fail.\n", len(failed), n)
	for _, f := range failed {
		fmt.Fprintf(&b, "\n%s (%s):\n%s\n", f.Path, strings.ReplaceAll(string(f.Outcome), "_", " "), strings.TrimSpace(f.Output))
	}
	b.WriteString("\nPlease fix the code, or a test if the test itself is wrong.")
	return b.String()
}

// accept ends a protocol other than dixit with the coder's work accepted; never a coder
// that tampered with the test runner, whose passes prove nothing.
func (r *Run) accept(ctx context.Context, coder *coderSlot, reason string) (*Result, error) {
	if t := r.tamperOf(coder.Name()); t != nil {
		return r.escalate(ctx, CodersTampered, tamperReason(coder.Name(), t)+": its work is not accepted")
	}
	res, err := r.escalate(ctx, Accepted, reason)
	if res != nil {
		res.Final = coder.Name()
	}
	return res, err
}
