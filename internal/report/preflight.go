package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// preflightSection says what the check of the base found; nothing when all was well.
func preflightSection(s runfile.Summary, full bool) string {
	p := s.Preflight
	if p == nil || (p.Passed && (p.OwnTests == "pass" || p.OwnTests == "none" || p.OwnTests == "")) {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Preflight: the base revision in the judge's sandbox\n\n")
	if !p.Passed {
		if p.MidRun {
			fmt.Fprintf(&b, "Every coder failed a test the same way, and an empty test on the base revision ended **%s** too: the environment broke during the run. Nothing was recorded for that test. What to do: %s.\n\n", p.Outcome, plain(p.Hint))
		} else {
			fmt.Fprintf(&b, "An empty test on the base revision ended **%s**, so no agent was called. What to do: %s.\n\n", p.Outcome, plain(p.Hint))
		}
		if full {
			details(&b, "The judge's output", "", []byte(p.Output))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "The base revision builds, but its own tests ended **%s**", p.OwnTests)
	if n := len(p.OwnFailing); n > 0 {
		names := make([]string, n)
		for i, name := range p.OwnFailing {
			names[i] = inlineCode(name)
		}
		fmt.Fprintf(&b, " (%s failing: %s)", words.Count(n, "test", "tests"), strings.Join(names, ", "))
	}
	b.WriteString(". The run went on: the spec may ask to fix what they catch.\n\n")
	if full && p.OwnOutput != "" {
		details(&b, "The base's own tests' output", "", []byte(p.OwnOutput))
	}
	return b.String()
}

// failuresSection shows why cells failed in each coder's last suite run and in the
// classifications no coder passed, so a reader sees the compiler error or the traceback.
func failuresSection(s runfile.Summary, full bool, more string) string {
	type failure struct{ where, output string }
	var failures []failure
	last := map[string]orchestrate.Event{}
	classified := map[string]int{} // test → its place in failures
	for _, ev := range s.Events {
		switch {
		case ev.Kind == orchestrate.EvSuite:
			last[ev.Agent] = ev
		case ev.Kind == orchestrate.EvClassify && ev.Passed == 0 && len(ev.Cells) > 0 && ev.Cells[0].Output != "":
			f := failure{fmt.Sprintf("%s on %s (no coder passed it; %s)", ev.Test, ev.Cells[0].Coder, ev.Cells[0].Outcome), ev.Cells[0].Output}
			if i, ok := classified[ev.Test]; ok { // a stacked test tried again: its latest verdict
				failures[i] = f
				continue
			}
			classified[ev.Test] = len(failures)
			failures = append(failures, f)
		}
	}
	for _, c := range s.Coders {
		for _, cell := range last[c.Name].Cells {
			if cell.Outcome != "pass" && cell.Output != "" {
				failures = append(failures, failure{fmt.Sprintf("%s on %s (%s, last suite run)", cell.Test, c.Name, cell.Outcome), cell.Output})
			}
		}
	}
	if len(failures) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Why verdicts failed\n\n")
	if !full {
		fmt.Fprintf(&b, "The judge's output for %s is in %s and in summary.json.\n\n", words.Count(len(failures), "failing verdict", "failing verdicts"), more)
		return b.String()
	}
	for _, f := range failures {
		details(&b, plain(f.where), "", []byte(f.output))
	}
	return b.String()
}

// The most a run's ENVIRONMENT reason says, in characters: a line read at the end of a
// run; the judge's output and the whole hint are in the report.
const maxEnvironmentReason = 299

// EnvironmentReason is why a run stopped at ENVIRONMENT, with what to do, in a line.
func EnvironmentReason(p *runfile.Preflight) string {
	if p.MidRun {
		return words.Clip(fmt.Sprintf("an empty test on the base revision ended %s during the run (the same command resumes once this is fixed): %s",
			p.Outcome, p.Hint), maxEnvironmentReason)
	}
	return words.Clip(fmt.Sprintf("the judge could not build and test the base revision here (%s): %s", p.Outcome, p.Hint), maxEnvironmentReason)
}

// EnvironmentStop is the progress line's word for the stop: what happened, not the hint,
// which the outcome line says once.
func EnvironmentStop(p *runfile.Preflight) string {
	if p.MidRun {
		return fmt.Sprintf("every coder failed a test the same way, and so did an empty test on the base revision (%s)", p.Outcome)
	}
	return fmt.Sprintf("an empty test on the base revision ended %s, so no agent was called", p.Outcome)
}
