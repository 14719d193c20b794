package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
	"github.com/dixit-bot/dixit/internal/words"
)

// Turned follows a verdict's reason with how many of the vetted tests that fail on the
// base revision the patch makes pass: what the patch changed that the suite can see. The
// reason is left as it is when the base was not checked.
func Turned(why string, findings []vet.Finding, vetted []runfile.VettedTest) string {
	onBase := map[string]*runfile.BaseCheck{}
	for _, v := range vetted {
		onBase[v.ID] = v.OnBase
	}
	failing, passing := 0, 0
	for _, f := range findings {
		if onBase[f.ID].Kind() != runfile.TestsTheChange {
			continue
		}
		failing++
		if f.Patch.Passed() {
			passing++
		}
	}
	if failing == 0 {
		return why
	}
	return words.Sentences(why, fmt.Sprintf("it turns %d of the %s that fail on the base revision from failing to passing",
		passing, words.Count(failing, "vetted test", "vetted tests")))
}

// Breaks puts before a verdict's reason the repository's own tests the patch breaks.
func Breaks(why string, broken []ci.Regression) string {
	if len(broken) == 0 {
		return why
	}
	return words.Sentences(fmt.Sprintf("The patch breaks %d of the repository's own tests that pass on the base (first: %s, which %s)",
		len(broken), broken[0].Test, broken[0].Reason), why)
}

// vetSection shows how the patch under review did on the run's tests: the verdict, every
// vetted test with how many independent implementations pass it, and for each vetted test
// the patch fails, the test and the patch's output (a human may read tests; agents never
// see them). With outputs false, the failing tests are listed without their text.
func vetSection(s runfile.Summary, outputs bool) string {
	v := s.Vet
	if v == nil {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## The patch under review\n\n**Verdict: %s.** %s\n\n", v.Conclusion, v.Why)
	p("The patch was judged after the run, on every test the testers proposed, with the same reruns and sandbox as the coders. It had no vote, and no agent saw it.\n\n")
	if v.Mutants != nil {
		p("Mutation score: %s.\n\n", v.Mutants.Sentence())
	}
	gate := gated(v.Vetted, v.Others)
	if v.GateShare > 0 {
		p("The gate is the vetted suite and every other proposed test that at least %.0f %% of the independent implementations pass, unanimous ones included (`vet_gate: threshold`; docs/real-patches.md).\n\n", 100*v.GateShare)
	}
	if len(gate) > 0 {
		p("| test | the patch | independent implementations that pass it |\n|---|---|---|\n")
		for _, f := range gate {
			p("| %s | %s | %d of %d |\n", gateName(f, code(f.ID), " "), f.Patch.Outcome, len(f.PassedBy), f.Implementations)
		}
		b.WriteString("\n")
	}
	for _, f := range gate {
		if f.Patch.Passed() {
			continue
		}
		summary := fmt.Sprintf("%s by %s, which the patch fails (%s)", gateName(f, "<code>"+plainHTML(f.ID)+"</code>", ": "),
			plainHTML(f.Tester), f.Patch.Outcome)
		if !outputs {
			p("- %s\n", summary)
			continue
		}
		details(&b, summary, Language(s.TestPath), f.Content)
		details(&b, outputSummary(f.Number, f.Patch.Output), "text", []byte(f.Patch.Output))
	}
	if !outputs {
		b.WriteString("\n")
	}
	switch {
	case len(v.Differences) > 0:
		p("On %s of the probe's inputs the patch answers otherwise than most implementations that pass the vetted suite:\n\n",
			words.Count(len(v.Differences), "input", "inputs"))
		p("| input | the patch | most implementations |\n|---|---|---|\n")
		rows := v.Differences
		if !outputs && len(rows) > 10 {
			rows = rows[:10]
		}
		for _, d := range rows {
			patch := code(d.Patch)
			if d.Patch == "" {
				patch = "no answer"
			}
			p("| %s | %s | %s (%d of %d) |\n", code(d.Input), patch, code(d.Consensus), d.Agree, d.Of)
		}
		if len(rows) < len(v.Differences) {
			p("\n… and %d more inputs, in the full report and summary.json.\n", len(v.Differences)-len(rows))
		}
		b.WriteString("\n")
	case v.ProbeNote != "":
		p("Differential testing: %s.\n\n", escapeLine(v.ProbeNote))
	default:
		p("On every input of the probe, the patch answers as most implementations that pass the vetted suite do.\n\n")
	}
	if out := len(v.Others) - (len(gate) - len(v.Vetted)); out > 0 {
		passes := 0
		for _, f := range v.Others {
			if !f.Gated && f.Patch.Passed() {
				passes++
			}
		}
		p("Of the %s outside the gate (the Dixit rule kept them out of the suite: every implementation passed them, or too few did), the patch passes %d.\n\n",
			words.Count(out, "other proposed test", "other proposed tests"), passes)
	}
	return b.String()
}

// gated is the tests the patch had to pass: the vetted suite in its order, then the other
// proposed tests that joined the gate.
func gated(vetted, others []vet.Finding) []vet.Finding {
	out := slices.Clone(vetted)
	for _, f := range others {
		if f.Gated {
			out = append(out, f)
		}
	}
	return out
}

// gateName is how the report names a test of the gate: "test 2" sep id for a vetted one,
// "proposed test id, not vetted" for one that joined the gate.
func gateName(f vet.Finding, id, sep string) string {
	if f.Number == 0 {
		return "proposed test " + id + ", not vetted"
	}
	return fmt.Sprintf("test %d%s%s", f.Number, sep, id)
}

// VetReview is the review a vetted pull request gets: the preface (what was judged
// against what), then the patch's section, shortened to limit characters when the tests
// and outputs do not fit, with fullReport linked in their place.
func VetReview(s runfile.Summary, preface string, limit int, fullReport string) string {
	out := preface + vetSection(s, true)
	if limit <= 0 || length(out) <= limit {
		return out
	}
	more := "the full report"
	if fullReport != "" {
		more = fmt.Sprintf("[the full report](%s)", fullReport)
	}
	note := fmt.Sprintf("\n---\nThe failing tests' text and the patch's outputs are in %s.\n", more)
	out = preface + vetSection(s, false) + note
	if length(out) <= limit {
		return out
	}
	return cutAt(out, limit, fmt.Sprintf("\n\n… cut here to fit GitHub's limit; the rest of this review, the failing tests' text and the patch's outputs can be read in %s.\n", more))
}

// outputSummary names a failing run's output, and says when it is only what the judge
// keeps of it: the tail, up to ci.MaxOutput bytes.
func outputSummary(test int, output string) string {
	if len(output) < ci.MaxOutput-utf8.UTFMax {
		return fmt.Sprintf("the patch's output on test %d", test)
	}
	return fmt.Sprintf("the patch's output on test %d: its last %d KiB, all the judge keeps", test, ci.MaxOutput>>10)
}
