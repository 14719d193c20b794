package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Preflight is the check of the base revision before any agent was paid: an empty test
// built and run on it in the judge's sandbox, then the base's own tests.
type Preflight struct {
	Passed  bool   `json:"passed"`
	Outcome string `json:"outcome"`          // the empty test's verdict on the base
	Output  string `json:"output,omitempty"` // the judge's output when it did not pass
	Hint    string `json:"hint,omitempty"`   // what to install or configure
	// OwnTests is the verdict of the base's own tests: pass, fail, build_failed, …;
	// "none" when the base has none, "not run" when the contract cannot run them.
	OwnTests  string `json:"own_tests,omitempty"`
	OwnOutput string `json:"own_output,omitempty"`
	// OwnFailing names the base's own tests that failed, as far as the output shows them.
	OwnFailing []string `json:"own_failing,omitempty"`
	Seconds    float64  `json:"seconds"`
	// MidRun is set when the check ran during the run, after every coder failed a test
	// the same way, rather than before any agent worked.
	MidRun bool `json:"mid_run,omitempty"`
}

// preflightSection says what the check of the base found; nothing when all was well.
func preflightSection(s Summary, full bool) string {
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
		fmt.Fprintf(&b, " (%s failing: %s)", plural(n, "test"), strings.Join(names, ", "))
	}
	b.WriteString(". The run went on: the spec may ask to fix what they catch.\n\n")
	if full && p.OwnOutput != "" {
		details(&b, "The base's own tests' output", "", []byte(p.OwnOutput))
	}
	return b.String()
}

// failuresSection shows why cells failed in each coder's last suite run and in the
// classifications no coder passed, so a reader sees the compiler error or the traceback.
func failuresSection(s Summary, full bool, more string) string {
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
		fmt.Fprintf(&b, "The judge's output for %s is in %s and in summary.json.\n\n", plural(len(failures), "failing verdict"), more)
		return b.String()
	}
	for _, f := range failures {
		details(&b, plain(f.where), "", []byte(f.output))
	}
	return b.String()
}

// Existing is what the repository's own tests did on the base revision: the regression
// set every coder (and a patch under review) must keep passing.
type Existing struct {
	Mode    string           `json:"mode"` // existing_tests: affected or all
	Runs    int              `json:"runs"`
	Set     ci.RegressionSet `json:"set"`
	Outcome ci.Outcome       `json:"outcome,omitempty"` // the base suite's, when it ran
	Output  string           `json:"output,omitempty"`  // why it did not
	Note    string           `json:"note,omitempty"`    // why it guards nothing
	Seconds float64          `json:"seconds"`
	// Patch lists the tests of the set the patch under review breaks (bot vet).
	Patch []ci.Regression `json:"patch,omitempty"`
	// Retired are the tests of the set the spec changes: most coders' first solutions
	// broke them, so they guarded nothing in the run.
	Retired []string `json:"retired,omitempty"`
}
