package rulesreport

import (
	"fmt"
	"io"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// Summary prints the headline: for every corpus and K, the gate of the seed rule and of
// the rule closest to the aim, and the best pick against CodeT and the Dixit pick.
func Summary(w io.Writer, res *Result) {
	for _, rep := range res.Reports {
		fmt.Fprintf(w, "\n%s, %d instances:\n", corpusName(rep), rep.Instances)
		for _, k := range sizes(rep) {
			row, _ := rep.Row(k, rules.Bands[0])
			seed, _ := row.Rule(rules.Seed)
			fmt.Fprintf(w, "  K=%d: seed rule catches %s of unresolved, fails %s of resolved, no verdict %s\n",
				k, pct(seed.Caught), pct(seed.ResolvedFailed), bare(seed.NoVerdict))
			if gate, ok := row.Rule(rules.Threshold); ok {
				fmt.Fprintf(w, "        bot vet's gate (vet_gate: threshold, the default): catches %s, fails %s, no verdict %s\n",
					pct(gate.Caught), pct(gate.ResolvedFailed), bare(gate.NoVerdict))
				fmt.Fprintf(w, "          its tests: %s a panel, %s pass on the gold, %s fail on the base; P(resolved | passes) %s\n",
					count(gate.Kept), pct(gate.GoldPrecision), pct(gate.FailsOnBase), pct(gate.ResolvedIfPasses))
			}
			if p, ok := row.Pick(DefaultPick); ok {
				fmt.Fprintf(w, "        the pick (pick: hybrid, the default) resolves %s; over pick: most_tests %s, CodeT %s, the Dixit pick %s\n",
					pct(p.Correct), diff(row, rules.PickMost(rules.Seed)), diff(row, rules.PickCodeT), diff(row, rules.PickConsensus(rules.Seed)))
			}
			if g, ok := closest(res.Gate, rep, k); ok {
				fmt.Fprintf(w, "        closest to the aim: %s, %s / %s (%.1f pt short)\n", g.Rule, pct(g.Caught), pct(g.ResolvedFailed), 100*g.Shortfall)
			}
			for _, pc := range res.Picks {
				if pc.Corpus == rep.Corpus && pc.Kind == rep.Kind && pc.K == k {
					fmt.Fprintf(w, "        best pick: %s %s; over CodeT %s, over the Dixit pick %s\n", PickName(pc.Best), pct(pc.Value),
						versus(pc, rules.PickCodeT), versus(pc, rules.PickConsensus(rules.Seed)))
				}
			}
		}
	}
}

// closest is the rule with the smallest shortfall on one corpus and K.
func closest(checks []rules.GateCheck, rep *rules.Report, k int) (rules.GateCheck, bool) {
	var best rules.GateCheck
	found := false
	for _, g := range checks {
		if g.Corpus == rep.Corpus && g.Kind == rep.Kind && g.K == k && (!found || g.Shortfall < best.Shortfall) {
			best, found = g, true
		}
	}
	return best, found
}

// DefaultPick is the replay's name of the product's default pick (pick.Hybrid): the seed
// rule's consensus, then dual agreement.
var DefaultPick = rules.PickHybrid(rules.Seed)

// diff is the default pick minus another, paired, in points.
func diff(row *rules.Row, alt string) string {
	d, ok := row.PickDiff(DefaultPick, alt)
	if !ok {
		return "–"
	}
	return points(d)
}
