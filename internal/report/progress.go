// Package report turns a run's events and result into what people read: a live progress
// display, a Markdown report, and summary.json (whose schema is internal/runfile's). It
// words the pick (internal/pick) but does not make it.
package report

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/statusline"
	"github.com/dixit-bot/dixit/internal/vet"
	"github.com/dixit-bot/dixit/internal/words"
)

var (
	_ orchestrate.Reporter = (*Progress)(nil)
	_ orchestrate.Watcher  = (*Progress)(nil)
)

// Progress prints one line per protocol event as the run goes and, given a status line,
// keeps there the round and the agent work running now.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer           // nil for no lines
	status   *statusline.Display // nil for no status line
	start    time.Time
	replayed int
	resumed  bool               // the resumed line is printed: once per invocation, however phases interleave replay and live work
	running  []orchestrate.Work // the agents' work under way: several in a parallel phase
}

// NewProgress writes progress lines to w and keeps status up to date; either may be nil.
// Lines should go through the status line's display when there is one, so that it makes
// way for them.
func NewProgress(w io.Writer, status *statusline.Display) *Progress {
	return &Progress{w: w, status: status, start: time.Now()}
}

// Event prints ev. Events replayed from the journal are counted and summarised instead of
// printed one by one, so a resumed run shows where it picks up.
func (p *Progress) Event(_ context.Context, ev orchestrate.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Kind == orchestrate.EvRound {
		p.status.Set(statusline.Stage, fmt.Sprintf("round %d", ev.Round))
	}
	if p.w == nil {
		return
	}
	if ev.Replayed {
		p.replayed++
		return
	}
	if p.replayed > 0 && !p.resumed {
		p.resumed = true
		fmt.Fprintf(p.w, "resumed: %s replayed from the journal (round %d, %s); going on live\n",
			words.Count(p.replayed, "event", "events"), ev.Round, words.Count(ev.Suite, "vetted test", "vetted tests"))
	}
	if line := Line(ev); line != "" {
		if ev.Kind == orchestrate.EvRound {
			fmt.Fprintf(p.w, "%s  [%s]\n", line, time.Since(p.start).Round(100*time.Millisecond))
			return
		}
		fmt.Fprintln(p.w, line)
	}
}

// Begin shows an agent's work on the status line while it runs, beside the other
// agents' work under way in the same phase.
func (p *Progress) Begin(_ context.Context, w orchestrate.Work) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, w)
	p.status.Set(statusline.Work, doingAll(p.running))
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for i, r := range p.running {
			if r == w {
				p.running = append(p.running[:i], p.running[i+1:]...)
				break
			}
		}
		p.status.Set(statusline.Work, doingAll(p.running))
	}
}

// doingAll says what the agents at work are doing: one as Doing says, several of a kind
// in one phrase with their names, different kinds one after the other.
func doingAll(ws []orchestrate.Work) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return Doing(ws[0])
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Agent
		if doingKind(w) != doingKind(ws[0]) {
			var parts []string
			for _, w := range ws {
				parts = append(parts, Doing(w))
			}
			return strings.Join(parts, "; ")
		}
	}
	who := strings.Join(names, ", ")
	switch doingKind(ws[0]) {
	case "first":
		return fmt.Sprintf("coders solving (%d at once): %s", len(ws), who)
	case orchestrate.EvSolve:
		return who + " revising their solutions"
	case orchestrate.EvPropose:
		return who + " writing tests"
	case orchestrate.EvAnswer:
		return who + " answering"
	}
	return who + " " + ws[0].Kind
}

// doingKind groups work that one phrase can say: a first solve is not a revision.
func doingKind(w orchestrate.Work) string {
	if w.Kind == orchestrate.EvSolve && w.Draw == 1 && w.Of > 0 {
		return "first"
	}
	return w.Kind
}

// Doing says what an agent is doing, for the status line.
func Doing(w orchestrate.Work) string {
	switch {
	case w.Kind == orchestrate.EvSolve && w.Draw == 1 && w.Of > 0:
		return fmt.Sprintf("coders solving (%d/%d): %s", w.Place, w.Of, w.Agent)
	case w.Kind == orchestrate.EvSolve:
		return w.Agent + " revising its solution"
	case w.Kind == orchestrate.EvPropose:
		return w.Agent + " writing a test"
	case w.Kind == orchestrate.EvAnswer:
		return w.Agent + " answering"
	}
	return w.Agent + " " + w.Kind
}

// Judging says what a call to the judge does while it runs: one test on every coder (a
// classification), tests on one coder (its suite, its own tests), or many of both.
// started counts the jobs begun so far; 0 when the judge does not say.
func Judging(jobs []ci.Job, started int) string {
	if len(jobs) == 0 {
		return ""
	}
	tests, coders := map[string]bool{}, map[string]bool{}
	for _, j := range jobs {
		tests[j.Test.ID], coders[j.Coder] = true, true
	}
	var text string
	switch {
	case len(tests) == 1 && len(coders) == 1:
		text = fmt.Sprintf("running %s on %s", jobs[0].Test.ID, jobs[0].Coder)
	case len(tests) == 1:
		text = fmt.Sprintf("judging %s on %s", jobs[0].Test.ID, trees(coders))
	case len(coders) == 1:
		text = fmt.Sprintf("running %s on %s", words.Count(len(tests), "test", "tests"), jobs[0].Coder)
	default:
		text = fmt.Sprintf("running %s on %s", words.Count(len(tests), "test", "tests"), trees(coders))
	}
	if started > 0 && len(jobs) > 1 {
		text += fmt.Sprintf(" (%d/%d)", min(started, len(jobs)), len(jobs))
	}
	return text
}

// trees words the trees a judge call runs on: the coders counted as coders, and the
// patch under review, its mutants and the base revision named for what they are, since
// none of them is a coder.
func trees(names map[string]bool) string {
	coders, mutants := 0, 0
	var others []string
	for name := range names {
		switch {
		case name == vet.PatchName:
			others = append(others, "the patch under review")
		case name == ci.MutatedName:
			others = append(others, "the code mutated")
		case strings.HasPrefix(name, ci.MutantPrefix):
			mutants++
		case name == ci.BaseName:
			others = append(others, "the base revision")
		default:
			coders++
		}
	}
	var parts []string
	if coders > 0 {
		parts = append(parts, words.Count(coders, "coder", "coders"))
	}
	slices.Sort(others) // map order is random; the words should not be
	parts = append(parts, others...)
	if mutants > 0 {
		parts = append(parts, words.Count(mutants, "mutant", "mutants"))
	}
	return words.List(parts...)
}

// Line renders one event for people; it returns "" for events not worth a line.
func Line(ev orchestrate.Event) string {
	who := fmt.Sprintf("  %-8s", ev.Agent)
	switch ev.Kind {
	case orchestrate.EvRound:
		return fmt.Sprintf("── round %d · vetted suite: %s", ev.Round, words.Count(ev.Suite, "test", "tests"))
	case orchestrate.EvSolve:
		return fmt.Sprintf("%s %s%s", who, ev.Detail, tokens(ev.Spend))
	case orchestrate.EvPropose:
		if ev.Test == "" {
			return fmt.Sprintf("%s has nothing more to propose%s", who, tokens(ev.Spend))
		}
		if ev.Spend != nil {
			return fmt.Sprintf("%s drafted %s%s", who, ev.Test, tokens(ev.Spend))
		}
		return ""
	case orchestrate.EvClassify:
		verb := "proposes"
		if ev.Detail == "stacked" {
			verb = "re-tries "
		}
		tampered, judged, blamed := orchestrate.TamperCount(ev.Cells)
		voters, unprepared := judged-tampered, len(ev.Cells)-judged
		note := ""
		if unprepared > 0 {
			// They have no vote: the rule counted only the coders that could be prepared.
			note = fmt.Sprintf(" (%d not prepared)", unprepared)
		}
		if blamed {
			note += fmt.Sprintf(" (tampered on %d of %d coders: the test's own doing, rejected)", tampered, judged)
		} else if tampered > 0 {
			note += fmt.Sprintf(" (%d tampered, no vote)", tampered)
		}
		return fmt.Sprintf("%s %s %-8s → %-8s %d/%d pass%s  %s", who, verb, ev.Test, ev.Class, ev.Passed, voters, note, cells(ev.Cells, true))
	case orchestrate.EvSuite:
		return fmt.Sprintf("%s suite  %s", who, cells(ev.Cells, false))
	case orchestrate.EvExisting:
		if strings.HasPrefix(ev.Detail, "keeps") {
			return "" // the usual case says nothing worth a line
		}
		return fmt.Sprintf("%s existing tests: %s", who, inert(ev.Detail))
	case orchestrate.EvTampered:
		return fmt.Sprintf("  ⚠ %s tampered with the test runner on %s: %s", ev.Coder, ev.Test, inert(ev.Detail))
	case orchestrate.EvVet:
		return fmt.Sprintf("  ✚ %s enters the vetted suite as %s", ev.Test, ev.Detail)
	case orchestrate.EvThank:
		return fmt.Sprintf("%s thanked", who)
	case orchestrate.EvRollback:
		return fmt.Sprintf("%s rolled back to %s", who, ev.Detail)
	case orchestrate.EvHibernate:
		return fmt.Sprintf("%s hibernates (%s)", who, ev.Detail)
	case orchestrate.EvRevive:
		return fmt.Sprintf("%s wakes up: %s", who, ev.Detail)
	case orchestrate.EvEscalate:
		return fmt.Sprintf("══ escalation %s: %s", ev.Outcome, ev.Detail)
	case orchestrate.EvDecide:
		return fmt.Sprintf("══ decision by %s: %s", ev.Agent, ev.Detail)
	}
	return ""
}

// cells renders verdicts compactly: per coder for a classification, per test for a suite.
func cells(cs []orchestrate.Cell, byCoder bool) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		mark := "ACC"
		if c.Outcome != "pass" {
			mark = "WA"
			if c.Outcome != "fail" {
				mark = "WA(" + strings.ReplaceAll(c.Outcome, "_", " ") + ")"
			}
		}
		if byCoder {
			parts[i] = c.Coder + " " + mark
		} else {
			parts[i] = mark
		}
	}
	return strings.Join(parts, " · ")
}

// tokens renders an effect's token spend, or nothing for scripted agents.
func tokens(s *orchestrate.Spend) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("  (%d+%d tokens)", s.PromptTokens, s.CompletionTokens)
}
