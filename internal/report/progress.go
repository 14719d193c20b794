// Package report turns a run's events and result into what people read: a live progress
// display, a Markdown report and summary.json.
package report

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var _ orchestrate.Reporter = (*Progress)(nil)

// Progress prints one line per protocol event as the run goes.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	start    time.Time
	replayed int
}

// NewProgress writes progress lines to w.
func NewProgress(w io.Writer) *Progress { return &Progress{w: w, start: time.Now()} }

// Event prints ev. Events replayed from the journal are counted and summarised instead of
// printed one by one, so a resumed run shows where it picks up.
func (p *Progress) Event(_ context.Context, ev orchestrate.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Replayed {
		p.replayed++
		return
	}
	if p.replayed > 0 {
		fmt.Fprintf(p.w, "resumed: %d events replayed from the journal (round %d, %d vetted tests); going on live\n", p.replayed, ev.Round, ev.Suite)
		p.replayed = 0
	}
	if line := Line(ev); line != "" {
		if ev.Kind == orchestrate.EvRound {
			fmt.Fprintf(p.w, "%s  [%s]\n", line, time.Since(p.start).Round(100*time.Millisecond))
			return
		}
		fmt.Fprintln(p.w, line)
	}
}

// Line renders one event for people; it returns "" for events not worth a line.
func Line(ev orchestrate.Event) string {
	who := fmt.Sprintf("  %-8s", ev.Agent)
	switch ev.Kind {
	case orchestrate.EvRound:
		return fmt.Sprintf("── round %d · vetted suite: %d tests", ev.Round, ev.Suite)
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
		return fmt.Sprintf("%s %s %-8s → %-8s %d/%d pass  %s", who, verb, ev.Test, ev.Class, ev.Passed, len(ev.Cells), cells(ev.Cells, true))
	case orchestrate.EvSuite:
		return fmt.Sprintf("%s suite  %s", who, cells(ev.Cells, false))
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
