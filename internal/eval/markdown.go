package eval

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/mutation"
)

// Markdown renders the report: a table per protocol over all tasks, then one per task.
// svg, when set, is drawn inline (the HTML page); otherwise the plot is linked as a file.
func Markdown(r *Report, svg string) string {
	var b strings.Builder
	b.WriteString("# Protocol evaluation\n\n")
	fmt.Fprintf(&b, "> %s\n\n", agentsNote(r))
	fmt.Fprintf(&b, "Benchmark `%s`, %s agents: %d runs", r.Bench, r.Agents, len(r.Runs))
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, ", %d skipped", len(r.Skipped))
	}
	fmt.Fprintf(&b, ", %.1f s. Every figure comes from the judge running tests that no agent saw.\n\n", r.WallSeconds)
	if svg != "" {
		b.WriteString(svg + "\n\n")
	} else {
		b.WriteString("![Hidden pass rate and precision by protocol](eval.svg)\n\n")
	}
	b.WriteString("## By protocol\n\n")
	b.WriteString("| protocol | tasks | solved | hidden pass rate | precision of its tests | mutants killed: its tests · all proposed · hidden | LLM calls | tokens | cost | judge executions | wall |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range r.Totals {
		fmt.Fprintf(&b, "| %s | %d | %d/%d%s | %s | %s | %s | %d | %d | $%.4f | %d | %.1f s |\n",
			t.Protocol, t.Tasks, t.Solved, t.Tasks, intervalCell(t.Intervals.Solved),
			scoreCell(t.Hidden)+intervalCell(t.Intervals.Hidden), scoreCell(t.Precision)+intervalCell(t.Intervals.Precision),
			killedCell(t.Killed, t.Intervals), t.LLMCalls, t.Tokens, t.CostUSD, t.JudgeExecutions, t.WallSeconds)
	}
	if len(r.Totals) > 0 && r.Totals[0].Tasks < 2 {
		b.WriteString("\nNo confidence intervals: they need two tasks or more.\n")
	} else if len(r.Totals) > 0 {
		b.WriteString("\nIn brackets: 95 % bootstrap confidence intervals over tasks (2,000 resamples of the tasks, counts pooled).\n")
	}
	b.WriteString("\n## By task\n")
	for _, task := range taskNames(r) {
		fmt.Fprintf(&b, "\n### %s\n\n", task)
		b.WriteString("| protocol | outcome | final | hidden | precision | tests | failing hidden tests | tests the reference fails | mutants killed: its tests · all proposed · hidden | LLM calls | tokens | judge executions | wall |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, row := range r.Runs {
			if row.Task != task {
				continue
			}
			outcome := row.Outcome
			if row.Resumed {
				outcome += " (resumed)"
			}
			fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %d | %d | %d | %.1f s |\n",
				row.Protocol, outcome, row.Final, scoreCell(row.Hidden), scoreCell(row.Precision), row.TestsKind,
				ids(row.Hidden.Failed), ids(row.Precision.Failed), rowKilledCell(row.Mutation), row.LLMCalls, row.PromptTokens+row.CompletionTokens,
				row.JudgeExecutions, row.WallSeconds)
		}
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\n## Skipped\n\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "- task %s, protocol %s: %s\n", s.Task, s.Protocol, s.Why)
		}
	}
	b.WriteString(meaning)
	return b.String()
}

const meaning = `
## What the figures mean

- **hidden pass rate**: the share of the task's hidden tests that the final implementation
  passes (dixit: the pick of the escalation PR; other protocols: the accepted coder, else
  the first). **solved**: it passes them all.
- **precision of its tests**: the share of the run's tests that the reference solution
  passes: dixit's vetted suite, tdg's designed tests, or the final coder's own test files
  (critics, blind, single). A test the reference fails is wrong. n/a: the run kept no test.
- **mutants killed**: mutants of the final implementation (go-gremlins' default operators:
  arithmetic, comparison boundary and negation, ++/--, unary minus; at most 24, spread over
  the code) that each suite's tests catch: the run's tests (as for precision), every test
  proposed in the run (dixit: vetted or not), and the hidden tests. Only a test that passes
  on the implementation itself counts: a wrong test fails everywhere and catches nothing.
  Some mutants are equivalent (no test can tell them apart), so even the hidden tests
  rarely reach 1.00. n/a: not measured, or no mutant.
- **LLM calls**: the agents' journalled answers (solves, proposals, reviews, analyses, plans).
  With scripted agents they cost nothing, so tokens and cost are 0.
- **judge executions**: builds the protocol itself asked for, verdict cache hits excluded;
  measuring the run is not counted. **wall**: the run's time, measurement excluded. A
  resumed run replays its journal; its wall time and executions add up every invocation
  recorded in its run directory.
`

// agentsNote says first what kind of agents ran: with scripted ones the figures show that
// the protocols and the measurement work end to end, not which protocol is better, since
// the scripts were written to behave as they do.
func agentsNote(r *Report) string {
	if r.Agents != "llm" {
		return "**Scripted agents.** Every coder, tester and critic here is hand-written (each task's populations), " +
			"so this comparison proves the plumbing (protocols, judge, measurement), not the merit of the protocols. " +
			"`bot eval --live` measures them with an LLM."
	}
	models := r.models()
	if len(models) == 0 {
		return "**Live LLM agents**; which models they used was not recorded."
	}
	var names []string
	for _, m := range models {
		// A delimiter longer than any backticks in the name: the HTML page passes raw HTML.
		f := strings.Repeat("`", longestBackticks(m)+1)
		if strings.HasPrefix(m, "`") || strings.HasSuffix(m, "`") {
			m = " " + m + " "
		}
		names = append(names, f+m+f)
	}
	return fmt.Sprintf("**Live LLM agents**, model%s %s.", map[bool]string{true: "s"}[len(models) > 1], strings.Join(names, ", "))
}

// longestBackticks is the longest run of backticks in s (fence.Longest, written out here
// so that eval stays within ten internal imports; internal/archtest).
func longestBackticks(s string) int {
	longest, run := 0, 0
	for _, c := range s {
		if c != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// agentsLine is agentsNote in a few words, for the plot.
func agentsLine(r *Report) string {
	if r.Agents != "llm" {
		return "Scripted, hand-written agents: proves the plumbing, not the protocols' merit"
	}
	if models := r.models(); len(models) > 0 {
		return "Live LLM agents: " + strings.Join(models, ", ")
	}
	return "Live LLM agents"
}

// intervalCell shows an interval after its figure, or nothing.
func intervalCell(i *Interval) string {
	if i == nil {
		return ""
	}
	return fmt.Sprintf(" [%.2f, %.2f]", i.Low, i.High)
}

// killedCell shows a protocol's pooled mutants killed by its tests, all proposed tests
// and the hidden tests.
func killedCell(k KilledTotals, in Intervals) string {
	if k.Hidden.Total == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s%s · %s · %s%s", scoreCell(k.Tests), intervalCell(in.KilledTests), scoreCell(k.Proposed),
		scoreCell(k.Hidden), intervalCell(in.KilledHidden))
}

func rowKilledCell(m *Mutation) string {
	if m == nil || m.Mutants == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s · %s · %s of %d", killedCount(m.Tests), killedCount(m.Proposed), killedCount(m.Hidden), m.Mutants)
}

// killedCount is a suite's kills, or n/a when the run has no such test.
func killedCount(s mutation.Score) string {
	if s.Tests == 0 {
		return "n/a"
	}
	return fmt.Sprint(s.Killed)
}

// scoreCell shows a score as its rate and its counts.
func scoreCell(s Score) string {
	if s.Total == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%s (%d/%d)", rate(s), s.Passed, s.Total)
}

func ids(list []string) string {
	if len(list) == 0 {
		return "—"
	}
	return "`" + strings.Join(list, "`, `") + "`"
}

// taskNames lists the tasks in the order they ran.
func taskNames(r *Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, row := range r.Runs {
		if !seen[row.Task] {
			seen[row.Task] = true
			out = append(out, row.Task)
		}
	}
	return out
}
