package rulesreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// Markdown is rules.md: the checks against the aims, then every corpus, K and band.
func Markdown(res *Result) string {
	var b strings.Builder
	b.WriteString("# Keep rules, the vet gate and the picks on recorded matrices (issue 31)\n\n")
	fmt.Fprintf(&b, "`%s` — %.1f s. Every share carries a 95 %% bootstrap interval over instances. "+
		"A pick is scored by its expected correctness on each panel; one with nothing to go on falls back to a uniform panel coder "+
		"(the hybrid to CodeT's pick), and \"made\" is how often it did not.\n\n", res.Command, res.Seconds)
	writeAims(&b, res)
	b.WriteString("## Headline tables\n\n")
	for _, rep := range res.Reports {
		writeHeadline(&b, rep)
	}
	for _, rep := range res.Reports {
		writeCorpus(&b, rep)
	}
	return b.String()
}

func writeAims(b *strings.Builder, res *Result) {
	fmt.Fprintf(b, "## Against the aims\n\n### The gate: catch at least %.0f %% of unresolved patches, fail at most %.0f %% of resolved ones\n\n",
		100*res.Aim.Caught, 100*res.Aim.ResolvedFailed)
	b.WriteString("Each cell: unresolved caught / resolved failed, all panels; ✓ the figures meet the aim, ✓✓ so do the far ends of their intervals; otherwise the points missing.\n\n")
	for _, rep := range res.Reports {
		fmt.Fprintf(b, "**%s**\n\n| rule |", corpusName(rep))
		ks := sizes(rep)
		for _, k := range ks {
			fmt.Fprintf(b, " K=%d |", k)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(ks)) + "\n")
		for _, r := range rep.Rules {
			if r == rules.Oracle {
				continue
			}
			fmt.Fprintf(b, "| %s |", r)
			for _, k := range ks {
				fmt.Fprintf(b, " %s |", gateCell(res.Gate, rep, k, r))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("### The pick: the best candidate (the oracle aside) against the alternatives\n\n")
	b.WriteString("Best minus each alternative, paired on the same panels and resamples; \"same\" when it picks exactly alike on every panel.\n\n")
	b.WriteString("| corpus | K | best | resolves |")
	for _, alt := range rules.Alternatives {
		fmt.Fprintf(b, " − %s |", PickName(alt))
	}
	b.WriteString(" beats every alternative |\n|---|---|---|---|" + strings.Repeat("---|", len(rules.Alternatives)+1) + "\n")
	for _, pc := range res.Picks {
		fmt.Fprintf(b, "| %s (%s) | %d | %s | %s |", pc.Corpus, pc.Kind, pc.K, PickName(pc.Best), pct(pc.Value))
		for _, alt := range rules.Alternatives {
			fmt.Fprintf(b, " %s |", versus(pc, alt))
		}
		fmt.Fprintf(b, " %s |\n", yesNo(pc.Surely))
	}
	b.WriteString("\n")
}

// versus is the best pick's lead over alt.
func versus(pc rules.PickCheck, alt string) string {
	if alt == pc.Best {
		return "(best)"
	}
	if slices.Contains(pc.Same, alt) {
		return "same"
	}
	if d, ok := pc.Over[alt]; ok {
		return points(d)
	}
	return "–"
}

func gateCell(checks []rules.GateCheck, rep *rules.Report, k int, r rules.Rule) string {
	for _, g := range checks {
		if g.Corpus != rep.Corpus || g.Kind != rep.Kind || g.K != k || g.Rule != r {
			continue
		}
		s := fmt.Sprintf("%s / %s", bare(g.Caught), bare(g.ResolvedFailed))
		switch {
		case g.Surely:
			return s + " ✓✓"
		case g.Meets:
			return s + " ✓"
		}
		return fmt.Sprintf("%s (%.1f pt short)", s, 100*g.Shortfall)
	}
	return "–"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func sizes(rep *rules.Report) []int {
	var out []int
	for _, row := range rep.Rows {
		if row.Band == rules.Bands[0] {
			out = append(out, row.K)
		}
	}
	return out
}

func writeCorpus(b *strings.Builder, rep *rules.Report) {
	fmt.Fprintf(b, "## %s\n\n%d instances, %d panels per instance for each K, seed %d, %d bootstrap resamples.\n\n",
		corpusName(rep), rep.Instances, rep.PanelsPer, rep.Seed, rep.Resamples)
	for _, n := range append(append([]string(nil), rep.Notes...), rep.Skipped...) {
		fmt.Fprintf(b, "- %s\n", n)
	}
	b.WriteString("\n")
	for _, k := range sizes(rep) {
		fmt.Fprintf(b, "### K=%d\n\n", k)
		for _, band := range rules.Bands {
			row, _ := rep.Row(k, band)
			if row.Panels == 0 {
				fmt.Fprintf(b, "#### Share of resolved coders %s: no panel\n\n", band)
				continue
			}
			writeRow(b, row)
		}
	}
}

func writeRow(b *strings.Builder, row *rules.Row) {
	title := "All panels"
	if row.Band != rules.Bands[0] {
		title = "Share of resolved coders in the panel " + row.Band
	}
	fmt.Fprintf(b, "#### %s\n\n%d panels on %d instances; %.1f %% of a panel's coders resolve on average; %.1f usable tests per panel "+
		"(%s of (panel, test) pairs left out for an env cell); held out: %d unresolved and %d resolved (panel, coder) pairs.\n\n",
		title, row.Panels, row.Instances, 100*row.Share, row.Tests, bare(row.EnvOut), row.HeldOut.Unresolved, row.HeldOut.Resolved)
	b.WriteString("| rule | kept tests per panel | panels keeping none | kept tests passing on gold | kept tests failing on base | unresolved caught | resolved failed | P(resolved \\| passes) | no verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range row.Rules {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f.Rule, count(f.Kept), pct(f.Empty), pct(f.GoldPrecision),
			pct(f.FailsOnBase), pct(f.Caught), pct(f.ResolvedFailed), pct(f.ResolvedIfPasses), pct(f.NoVerdict))
	}
	b.WriteString("\n| pick | resolves | made | when made | when the panel holds a resolved coder | minus CodeT |\n|---|---|---|---|---|---|\n")
	for _, p := range row.Picks {
		d, _ := row.PickDiff(p.Pick, rules.PickCodeT)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", PickName(p.Pick), pct(p.Correct), bare(p.Made), bare(p.WhenMade),
			pct(p.Solvable), points(d))
	}
	b.WriteString("\n")
}
