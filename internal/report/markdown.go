package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Markdown renders the human report of a run.
func Markdown(s Summary, res *orchestrate.Result) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Dixit run %s\n\n", s.Run)
	if s.Agents == "scripted" {
		p("> Agents: a **scripted population** (hand-written coders and testers from `%s`); no LLM was called.\n\n", s.Population)
	}
	p("**Outcome: %s** — %s.\n\n", s.Outcome, s.Reason)
	p("%d rounds · %d vetted tests · %d coders · %d testers · judge: %d executions, %d cache hits, %d test runs, %.1f s (%s) · wall time %.1f s\n\n",
		s.Rounds, len(s.Vetted), len(s.Coders), len(s.Testers), s.Judge.Executions, s.Judge.CacheHits, s.Judge.Runs, s.Judge.Seconds, s.Judge.Sandbox, s.WallSeconds)
	if s.Judge.ActionsMinutes > 0 {
		p("GitHub Actions: %d minutes billed for classification.\n\n", s.Judge.ActionsMinutes)
	}
	p("%s\n\n", whatNext(s.Outcome))

	p("## Vetted suite\n\n")
	if len(s.Vetted) == 0 {
		p("No test entered the suite.\n\n")
	} else {
		p("| # | test | tester (proposal) | round | passed by | failed by when vetted |\n|---|---|---|---|---|---|\n")
		for _, v := range s.Vetted {
			p("| %d | `%s` | %s (%d) | %d | %s | %s |\n", v.Number, v.ID, v.Tester, v.Proposal, v.Round, strings.Join(v.PassedBy, ", "), strings.Join(v.FailedBy, ", "))
		}
		p("\n")
	}

	p("## Coders × vetted tests (last suite run)\n\n")
	p("%s\n", matrix(s))

	p("## Agents\n\n| coder | solves | hidden ref |\n|---|---|---|\n")
	for _, c := range s.Coders {
		p("| %s | %d | `%s` |\n", c.Name, c.Solves, c.Ref)
	}
	p("\n| tester | state | proposals |\n|---|---|---|\n")
	for _, t := range s.Testers {
		p("| %s | %s | %d |\n", t.Name, t.State, t.Proposals)
	}

	if s.Spend.PromptTokens+s.Spend.CompletionTokens > 0 {
		p("\n## Spend\n\n%d prompt + %d completion tokens", s.Spend.PromptTokens, s.Spend.CompletionTokens)
		if s.Spend.CostUSD > 0 {
			p(", about $%.2f", s.Spend.CostUSD)
		}
		p(".\n\n| agent | prompt | completion |\n|---|---|---|\n")
		for _, c := range s.Coders {
			t := s.Spend.ByAgent[c.Name]
			p("| %s | %d | %d |\n", c.Name, t.Prompt, t.Completion)
		}
		for _, tt := range s.Testers {
			t := s.Spend.ByAgent[tt.Name]
			p("| %s | %d | %d |\n", tt.Name, t.Prompt, t.Completion)
		}
	}
	p("\n## Timeline\n\n```\n")
	for _, ev := range s.Events {
		if line := Line(ev); line != "" {
			p("%s\n", line)
		}
	}
	p("```\n\n## The vetted tests\n\n")
	for _, v := range res.Vetted {
		f := fence(string(v.Content))
		p("<details><summary>test %d: <code>%s</code> by %s, round %d</summary>\n\n%s\n%s\n%s\n</details>\n\n",
			v.Number, v.ID, v.Tester, v.Round, f, strings.TrimRight(string(v.Content), "\n"), f)
	}
	return b.String()
}

func whatNext(o orchestrate.Outcome) string {
	switch o {
	case orchestrate.TestersExhausted:
		return "The testers found nothing more that separates the coders: the implementations agree on every vetted test. A human should compare them and decide."
	case orchestrate.AllTestersHibernated:
		return "Every tester's last tests were too hard for the coders: the spec may be ambiguous or the coders may share a blind spot."
	case orchestrate.CodersStuck:
		return "A coder could not pass a test most others pass: either that coder is broken or the test is wrong. A human decides."
	default:
		return "A budget ran out before the protocol reached a verdict."
	}
}

// matrix is the coder × test table from each coder's last suite run.
func matrix(s Summary) string {
	if len(s.Vetted) == 0 {
		return "(empty suite)\n"
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
		fmt.Fprintf(&b, "| %s |", c.Name)
		for _, v := range s.Vetted {
			mark := "·"
			switch out, ok := last[c.Name][v.ID]; {
			case !ok:
			case out == "pass":
				mark = "✅"
			default:
				mark = "❌ " + out
			}
			fmt.Fprintf(&b, " %s |", mark)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n✅ pass · ❌ fail · `·` not run since the test entered\n")
	return b.String()
}

// fence returns a code fence longer than any run of backticks in content, so a test's own
// text can never close the block early.
func fence(content string) string {
	longest, run := 0, 0
	for _, r := range content {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
