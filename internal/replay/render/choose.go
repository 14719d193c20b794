package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// targets are the precisions a user might ask the vetted suite for.
var targets = []float64{0.90, 0.95, 0.98, 0.99}

// choice is the setting recommended for one target precision.
type choice struct {
	target   float64
	smallest replay.Row // fewest coders whose interval's lower end reaches the target; most yield among those
	yield    replay.Row // most yield among all that reach it
	best     replay.Row // when none reaches it: the highest lower end
	found    bool
}

// choose reads the diverse rows on one problem set: a setting reaches a target when its
// precision interval's lower end does (the point estimate when there are no intervals).
func choose(rep *replay.Report) []choice {
	var rows []replay.Row
	for _, k := range rep.Sizes {
		for _, pct := range thresholds(rep) {
			r, ok := rep.Comparable(replay.Diverse.String(), k, pct)
			if ok && (replay.Rule{ThresholdPct: pct}).KeepsAny(k) && r.Figures.KeptTests > 0 {
				rows = append(rows, r)
			}
		}
	}
	low := func(r replay.Row) float64 {
		if hasCI(rep) {
			return r.CI.Precision.Lo
		}
		return r.Figures.KeptPrecision
	}
	var out []choice
	for _, t := range targets {
		c := choice{target: t}
		for _, r := range rows {
			if low(r) < t {
				if !c.found && (c.best.K == 0 || low(r) > low(c.best)) {
					c.best = r
				}
				continue
			}
			if !c.found || r.K < c.smallest.K || (r.K == c.smallest.K && better(r, c.smallest)) {
				c.smallest = r
			}
			if !c.found || better(r, c.yield) {
				c.yield = r
			}
			c.found = true
		}
		out = append(out, c)
	}
	return out
}

// better prefers more yield and, between thresholds that make the same rule at a K (0.5
// and 0.6 at K=5, say), the one nearer the seeds' 0.6.
func better(a, b replay.Row) bool {
	if a.Figures.AnyKept != b.Figures.AnyKept {
		return a.Figures.AnyKept > b.Figures.AnyKept
	}
	near := func(r replay.Row) int { return max(pctOf(r)-headline, headline-pctOf(r)) }
	return a.Figures.KeptPrecision == b.Figures.KeptPrecision && a.K == b.K && near(a) < near(b)
}

// setting names a row's K and threshold with its figures.
func setting(r replay.Row, have bool) string {
	return fmt.Sprintf("K=%d, t=%.1f: precision %s, yield %s", r.K, r.Threshold,
		withCI(r.Figures.KeptPrecision, r.CI.Precision, have), withCI(r.Figures.AnyKept, r.CI.Yield, have))
}

// chooseLines are the recommendations, one line per target.
func chooseLines(rep *replay.Report) []string {
	have := hasCI(rep)
	var lines []string
	for _, c := range choose(rep) {
		switch {
		case c.found && c.smallest.K == c.yield.K && c.smallest.Threshold == c.yield.Threshold:
			lines = append(lines, fmt.Sprintf("precision ≥ %.0f%%: %s", 100*c.target, setting(c.smallest, have)))
		case c.found:
			lines = append(lines, fmt.Sprintf("precision ≥ %.0f%%: fewest coders %s; most yield %s",
				100*c.target, setting(c.smallest, have), setting(c.yield, have)))
		case c.best.K > 0:
			lines = append(lines, fmt.Sprintf("precision ≥ %.0f%%: no replayed setting is sure to reach it; the closest is %s",
				100*c.target, setting(c.best, have)))
		}
	}
	return lines
}

// chooseSection writes "how to choose N and the threshold" from the diverse rows.
func chooseSection(b *strings.Builder, rep *replay.Report) {
	lines := chooseLines(rep)
	if len(lines) == 0 {
		return
	}
	rows := comparableRows(rep, replay.Diverse.String(), headlineOf(rep))
	b.WriteString("\n## How to choose N and the threshold for a target precision\n\n")
	fmt.Fprintf(b, "From the diverse panels (each coder from another model), on %s. ", setNote(rows, rep.Problems))
	if hasCI(rep) {
		b.WriteString("A setting counts as reaching a target only when the lower end of its 95% interval does. ")
	} else {
		b.WriteString("Without bootstrap intervals the point estimate decides, which overstates what a setting is sure to give. ")
	}
	b.WriteString("Among those, the fewest coders (each costs a model call and a column of test runs), then the most yield " +
		"(the share of panels that vet at least one test).\n\n")
	for _, l := range lines {
		fmt.Fprintf(b, "- %s\n", l)
	}
	fmt.Fprintf(b, "\nThese come from %s's functions and model sources; a repository's own code and models ", dataSetName(rep))
	b.WriteString("will differ, so take them as the order of things, and raise K before the threshold: at a fixed K a higher threshold " +
		"buys precision with yield, while with diverse panels a larger K has bought both.\n")
}

// Summary prints the headline figures for a terminal: every kind's K on one problem set,
// with the faults caught beside precision, then the recommendations.
func Summary(w io.Writer, rep *replay.Report) error {
	var b strings.Builder
	pct, have := headlineOf(rep), hasCI(rep)
	fmt.Fprintf(&b, "\nthreshold %.1f; [95%% bootstrap interval over problems]; caught = share of out-of-panel wrong implementations the suite rejects, "+
		"rejected = share of out-of-panel correct ones\n", float64(pct)/100)
	for _, kind := range rep.Kinds {
		rows := comparableRows(rep, kind, pct)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s, on %s:\n", kind, setNote(rows, rep.Problems))
		for _, r := range rows {
			f := faultCells(r, have)
			fmt.Fprintf(&b, "  K=%d  precision %s  yield %s  | vetted caught %s rejected %s | oracle %s / %s | all proposed %s / %s\n",
				r.K, withCI(r.Figures.KeptPrecision, r.CI.Precision, have), withCI(r.Figures.AnyKept, r.CI.Yield, have), f[0], f[1], f[2], f[3], f[4], f[5])
		}
	}
	b.WriteString("how to choose N and the threshold (diverse panels):\n")
	for _, l := range chooseLines(rep) {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
