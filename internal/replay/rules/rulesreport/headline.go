package rulesreport

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// The compact tables a reader compares corpora with (docs/real-patches.md copies them):
// every rule's gate and suite, every named pick, and both by band.

// headlinePicks are the picks the compact tables show, in order.
var headlinePicks = []string{rules.PickConsensus(rules.Seed), rules.PickHybrid(rules.Seed), rules.PickMost(rules.Seed), rules.PickCodeT,
	rules.PickMajority, rules.PickMaxPass, rules.PickRandom, rules.PickOracle}

func writeHeadline(b *strings.Builder, rep *rules.Report) {
	fmt.Fprintf(b, "### Headline: %s\n\n", corpusName(rep))
	ks := sizes(rep)
	b.WriteString("Gate, all panels: unresolved caught / resolved failed (no verdict: share of held-out pairs with an empty suite or an env cell).\n\n")
	writeByK(b, rep, "rule", ruleNames(rep), func(row *rules.Row, name string) string {
		f, _ := row.Rule(rules.Rule(name))
		return fmt.Sprintf("%s / %s (no verdict %s)", pct(f.Caught), pct(f.ResolvedFailed), bare(f.NoVerdict))
	})
	b.WriteString("Vetted suite, all panels: kept tests per panel; share passing on the gold; share failing on the base; P(resolved | passes the suite).\n\n")
	writeByK(b, rep, "rule", ruleNames(rep), func(row *rules.Row, name string) string {
		f, _ := row.Rule(rules.Rule(name))
		return fmt.Sprintf("%s; %s; %s; %s", count(f.Kept), pct(f.GoldPrecision), pct(f.FailsOnBase), pct(f.ResolvedIfPasses))
	})
	b.WriteString("Picks, all panels: how often the picked coder resolves.\n\n")
	writeByK(b, rep, "pick", headlinePicks, func(row *rules.Row, name string) string {
		p, _ := row.Pick(name)
		return pct(p.Correct)
	})
	b.WriteString("Picks on the panels holding at least one resolved coder (where a pick can be right).\n\n")
	writeByK(b, rep, "pick", headlinePicks[:len(headlinePicks)-1], func(row *rules.Row, name string) string {
		p, _ := row.Pick(name)
		return pct(p.Solvable)
	})
	for _, k := range ks {
		writeBands(b, rep, k)
	}
}

func ruleNames(rep *rules.Report) []string {
	var out []string
	for _, r := range rep.Rules {
		out = append(out, string(r))
	}
	return out
}

// writeByK is a table with one line per name and one column per K.
func writeByK(b *strings.Builder, rep *rules.Report, what string, names []string, cell func(*rules.Row, string) string) {
	ks := sizes(rep)
	fmt.Fprintf(b, "| %s |", what)
	for _, k := range ks {
		fmt.Fprintf(b, " K=%d |", k)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(ks)) + "\n")
	for _, name := range names {
		label := name
		if what == "pick" {
			label = PickName(name)
		}
		fmt.Fprintf(b, "| %s |", label)
		for _, k := range ks {
			row, _ := rep.Row(k, rules.Bands[0])
			fmt.Fprintf(b, " %s |", cell(row, name))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// writeBands is one K by band: the gate of the seed, threshold and threshold+repro rules,
// and the named picks.
func writeBands(b *strings.Builder, rep *rules.Report, k int) {
	gate := []rules.Rule{rules.Seed, rules.Threshold, rules.ThresholdRepro}
	fmt.Fprintf(b, "K=%d by share of resolved coders in the panel: panels; gate caught / failed for %s; picks %s.\n\n", k,
		joinRules(gate), joinPicks(headlinePicks))
	b.WriteString("| band | panels |")
	for _, r := range gate {
		fmt.Fprintf(b, " %s |", r)
	}
	for _, p := range headlinePicks {
		fmt.Fprintf(b, " %s |", PickName(p))
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(gate)+len(headlinePicks)) + "\n")
	for _, band := range rules.Bands {
		row, _ := rep.Row(k, band)
		fmt.Fprintf(b, "| %s | %d |", band, row.Panels)
		for _, r := range gate {
			f, _ := row.Rule(r)
			fmt.Fprintf(b, " %s / %s |", pct(f.Caught), pct(f.ResolvedFailed))
		}
		for _, p := range headlinePicks {
			f, _ := row.Pick(p)
			fmt.Fprintf(b, " %s |", pct(f.Correct))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func joinRules(rs []rules.Rule) string {
	var s []string
	for _, r := range rs {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}

func joinPicks(ps []string) string {
	var s []string
	for _, p := range ps {
		s = append(s, PickName(p))
	}
	return strings.Join(s, ", ")
}
