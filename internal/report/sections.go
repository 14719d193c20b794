package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/fence"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// The report's sections, in the order Render puts them.

func evidenceSection(s runfile.Summary, res *orchestrate.Result) string {
	kind := orchestrate.ReasonFor(s.Outcome).Evidence
	if kind == orchestrate.EvidencePreflight {
		return "" // the preflight section is the evidence
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	b.WriteString("## Why it stopped\n\n")
	e := s.Evidence
	switch {
	case e.Stuck != nil && len(e.Stuck.Attempts) == 0: // it broke the repository's own tests
		st := e.Stuck
		p("**%s** still breaks %d of the repository's own tests that pass on the base: %s. Either %s is broken, or the spec changes what %s (the section on the repository's own tests shows the set).\n\n",
			plain(st.Coder), len(st.Failing), codeList(st.Failing), plain(st.Coder), verb(len(st.Failing), "that test checks", "those tests check"))
	case e.Stuck != nil:
		st := e.Stuck
		p("**%s** still failed %s after %d attempts in round %d. Its verdicts on the vetted suite, attempt by attempt:\n\n",
			plain(st.Coder), testList(st.Failing, s), len(st.Attempts), s.Rounds)
		p("| attempt | passed | failed | verdict vector |\n|---|---|---|---|\n")
		for i, cells := range st.Attempts {
			var failed []string
			passed := 0
			for _, c := range cells {
				if c.Outcome == "pass" {
					passed++
				} else {
					failed = append(failed, fmt.Sprintf("%d (%s)", numberOf(s, c.Test), c.Outcome))
				}
			}
			p("| %d | %d/%d | %s | `%s` |\n", i+1, passed, len(cells), orNone(strings.Join(failed, ", ")), vector(cells))
		}
		p("\nThe other coders pass these tests: either %s is broken, or the tests expect something the spec does not say.\n\n", plain(st.Coder))
	case len(e.Stacked) > 0:
		p("Each tester's last two tests were too hard: fewer coders passed them than the threshold asks. They are stacked, waiting for the coders to catch up.\n\n")
		p("| tester | stacked test | coders passing | last tried in round |\n|---|---|---|---|\n")
		for _, t := range e.Stacked {
			p("| %s | %s | %d/%d | %d |\n", plain(t.Tester), inlineCode(t.Test), t.Passed, t.Coders, t.Round)
		}
		b.WriteString("\n")
		for _, t := range res.Testers {
			for _, c := range t.Stacked {
				details(&b, fmt.Sprintf("stacked test <code>%s</code> by %s", plainHTML(c.ID), plainHTML(t.Name)), Language(s.TestPath), c.Content)
			}
		}
	case len(e.OwnTests) > 0 || len(e.Reviews) > 0 || kind == orchestrate.EvidenceOwnChecks:
		if len(e.Reviews) > 0 {
			p("The critics' last reviews:\n\n| critic | verdict |\n|---|---|\n")
			for _, r := range e.Reviews {
				p("| %s | %s |\n", plain(r.Critic), escapeCell(r.Said))
			}
			b.WriteString("\n")
		}
		if len(e.OwnTests) == 0 {
			p("The coder's own tests were not run in the last iteration.\n\n")
			break
		}
		p("The last run of the coder's own tests:\n\n| test file | verdict |\n|---|---|\n")
		for _, c := range e.OwnTests {
			p("| %s | %s |\n", code(c.Test), c.Outcome)
		}
		b.WriteString("\n")
	case len(e.Exhausted) > 0:
		last := e.Exhausted[len(e.Exhausted)-1]
		p("In round %d no proposal entered the suite: %d %s too weak (every coder passed), %d too hard, and %s a tester had nothing more to propose.\n\n",
			last.Round, last.TooWeak, words.Noun(last.TooWeak, "was", "were"), last.TooHard, words.Count(last.None, "time", "times"))
		if all := len(classesByRound(s.Events)); all > len(e.Exhausted) {
			p("The last %d of %d rounds; every round is in the table under Rounds and in summary.json:\n\n", len(e.Exhausted), all)
		}
		p("| round | too weak | too hard | vetted | nothing to propose |\n|---|---|---|---|---|\n")
		for _, rc := range e.Exhausted {
			p("| %d | %d | %d | %d | %d |\n", rc.Round, rc.TooWeak, rc.TooHard, rc.Ideal, rc.None)
		}
		b.WriteString("\n")
	default:
		p("What ran out: %s. Spent so far: %s.\n\n", plain(orNone(e.Budget)), spendLine(s))
	}
	return b.String()
}

// matrix is the coder × test table from each coder's last suite run.
func matrix(s runfile.Summary) string {
	if len(s.Vetted) == 0 {
		return "(empty suite)\n\n"
	}
	last := map[string]map[string]string{}
	for _, ev := range s.Events {
		if ev.Kind != orchestrate.EvSuite {
			continue
		}
		row := map[string]string{}
		for _, c := range ev.Cells {
			row[c.Test] = c.Outcome
		}
		last[ev.Agent] = row
	}
	var b strings.Builder
	b.WriteString("| coder |")
	for _, v := range s.Vetted {
		fmt.Fprintf(&b, " %d |", v.Number)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(s.Vetted)) + "\n")
	for _, c := range s.Coders {
		fmt.Fprintf(&b, "| %s |", plain(c.Name))
		for _, v := range s.Vetted {
			// Words, not symbols: without an emoji font every symbol is the same box. The
			// HTML page colours the same words (markCell).
			mark := markNotRun
			switch out, ok := last[c.Name][v.ID]; {
			case !ok:
			case out == "pass":
				mark = markPass
			case out == "fail":
				mark = markFail
			default:
				mark = markFail + ": " + out
			}
			fmt.Fprintf(&b, " %s |", mark)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nEach cell is the coder's verdict on that test in its last suite run: " + markPass + "; " + markFail +
		", with how it failed when it did not simply fail (" + markFail + ": build_failed, timeout, over_limit); or " + markNotRun + " since the test entered.\n\n")
	return b.String()
}

// timelineSection charts the suite growing and the coders converging, round by round;
// without table, it says where the table can be read (more).
func timelineSection(s runfile.Summary, table bool, figs *Figures, more string) string {
	rounds := Timeline(s)
	if len(rounds) == 0 {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	b.WriteString("## Rounds\n\n")
	if figs != nil {
		p("%s\n\n", figs.Add(chartSVG(rounds, len(s.Coders))))
	} else {
		p("```mermaid\n%s```\n\n", Mermaid(rounds, len(s.Coders)))
	}
	b.WriteString("Bars: vetted tests at the end of each round. Line: coders passing every one of them.\n\n")
	if !table {
		p("The table by round is in %s.\n\n", more)
		return b.String()
	}
	b.WriteString("Round 1 counts the coders' first solutions too, made before the testers' first proposals.\n\n")
	p("| round | suite | proposals: weak / hard / vetted / none | coder solves | rollbacks | hibernated / woke | coders agreeing | tokens |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rounds {
		p("| %d | %d → %d | %d / %d / %d / %d | %d | %d | %d / %d | %d/%d | %d |\n", r.Round, r.SuiteBefore, r.SuiteAfter,
			r.TooWeak, r.TooHard, r.Ideal, r.None, r.Solves, r.Rollbacks, r.Hibernated, r.Revived, r.Agreeing, len(s.Coders), r.Tokens)
	}
	b.WriteString("\n")
	return b.String()
}

func spendSection(s runfile.Summary, perAgent bool, more string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Spend\n\n%s.\n\n", spendLine(s))
	p("Judge: %s, %s, %s, %s (%s).\n\n", words.Count(s.Judge.Executions, "execution", "executions"), words.Count(s.Judge.Runs, "test run", "test runs"),
		words.Count(s.Judge.CacheHits, "cache hit", "cache hits"), seconds(s.Judge.Seconds), s.Judge.Sandbox)
	if s.Spend.PromptTokens+s.Spend.CompletionTokens == 0 {
		return b.String()
	}
	if !perAgent {
		p("The tokens per agent are in %s.\n\n", more)
		return b.String()
	}
	b.WriteString("| agent | prompt tokens | completion tokens |\n|---|---|---|\n")
	for _, c := range s.Coders {
		t := s.Spend.ByAgent[c.Name]
		p("| %s | %d | %d |\n", plain(c.Name), t.Prompt, t.Completion)
	}
	for _, tt := range s.Testers {
		t := s.Spend.ByAgent[tt.Name]
		p("| %s | %d | %d |\n", plain(tt.Name), t.Prompt, t.Completion)
	}
	b.WriteString("\n")
	return b.String()
}

// spendLine is the run's cost in one line: tokens, dollars, Actions minutes, wall time.
func spendLine(s runfile.Summary) string {
	parts := []string{fmt.Sprintf("%d prompt + %d completion tokens", s.Spend.PromptTokens, s.Spend.CompletionTokens)}
	if s.Spend.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("about $%.2f", s.Spend.CostUSD))
	}
	if s.Judge.ActionsMinutes > 0 {
		parts = append(parts, fmt.Sprintf("%d GitHub Actions minutes", s.Judge.ActionsMinutes))
	}
	parts = append(parts, seconds(s.WallSeconds)+" wall time"+invocations(s))
	return strings.Join(parts, " · ")
}

// invocations says over how many invocations a resumed run's figures add up, so a reader
// knows they are the whole run's, not the last start's; nothing for a run started once.
func invocations(s runfile.Summary) string {
	if s.Invocations > 1 {
		return fmt.Sprintf(" over %d invocations", s.Invocations)
	}
	return ""
}

// testsSection shows each vetted test in a collapsible block, its code in lang; the short
// form lists them.
func testsSection(s runfile.Summary, res *orchestrate.Result, contents bool, more, lang string) string {
	var b strings.Builder
	b.WriteString("## The vetted tests\n\n")
	if len(res.Vetted) == 0 {
		b.WriteString("No test entered the suite.\n\n")
		return b.String()
	}
	b.WriteString(baseCheckLine(s.Vetted))
	if !contents {
		fmt.Fprintf(&b, "Their text is in %s and on the pull request's branch.\n\n", more)
	}
	for i, v := range res.Vetted {
		first := "no one"
		if len(v.FailedBy) > 0 {
			first = plainHTML(strings.Join(v.FailedBy, ", "))
		}
		at := ""
		if v.Path != "" {
			at = fmt.Sprintf(" at <code>%s</code>", plainHTML(v.Path))
		}
		summary := fmt.Sprintf("test %d: <code>%s</code>%s by %s, entered in round %d, first failed by %s", v.Number, plainHTML(v.ID), at, plainHTML(v.Tester), v.Round, first)
		if i < len(s.Vetted) && s.Vetted[i].OnBase != nil {
			summary += "; " + s.Vetted[i].OnBase.Kind()
		}
		if contents {
			details(&b, summary, lang, v.Content)
		} else {
			fmt.Fprintf(&b, "- %s\n", summary)
		}
	}
	if !contents {
		b.WriteString("\n")
	}
	return b.String()
}

func agentsSection(s runfile.Summary) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Agents\n\n| coder | solves | hidden ref |\n|---|---|---|\n")
	for _, c := range s.Coders {
		p("| %s | %d | %s |\n", coderLabel(c), c.Solves, inlineCode(c.Ref))
	}
	p("\n| tester | state | proposals |\n|---|---|---|\n")
	for _, t := range s.Testers {
		p("| %s | %s | %d |\n", plain(t.Name), t.State, t.Proposals)
	}
	b.WriteString("\n")
	return b.String()
}

func logSection(s runfile.Summary) string {
	var lines []string
	for _, ev := range s.Events {
		if line := Line(ev); line != "" {
			lines = append(lines, line)
		}
	}
	text := inert(strings.Join(lines, "\n")) // decisions quote people
	f := fence.For(text)
	return fmt.Sprintf("<details><summary>Event log (%s)</summary>\n\n%stext\n%s\n%s\n\n</details>\n", words.Count(len(s.Events), "event", "events"), f, text, f)
}

// baseCheckLine counts the vetted tests by what they did on the base revision, or says
// nothing when it was not checked.
func baseCheckLine(vetted []runfile.VettedTest) string {
	counts := map[string]int{}
	checked := 0
	for _, v := range vetted {
		if v.OnBase != nil {
			counts[v.OnBase.Kind()]++
			checked++
		}
	}
	if checked == 0 {
		return ""
	}
	change, guard := counts[runfile.TestsTheChange], counts[runfile.GuardsExisting]
	line := fmt.Sprintf("On the base revision, %d of the %d vetted tests %s: %s the change.",
		change, len(vetted), verb(change, "fails", "fail"), verb(change, "it tests", "they test"))
	if guard > 0 {
		line += fmt.Sprintf(" %d %s there: %s behaviour the repository already had.", guard, verb(guard, "passes", "pass"), verb(guard, "it guards", "they guard"))
	} else {
		line += " None passes there."
	}
	if n := counts[runfile.BaseUnknown]; n > 0 {
		line += fmt.Sprintf(" For %d the base could not be prepared, so nothing is known.", n)
	}
	return line + "\n\n"
}

// verb picks the verb's form for a count.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
