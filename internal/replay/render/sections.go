package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// sameProblems writes, per kind, every K on one problem set with intervals, the
// per-problem spread and the faults caught beside precision.
func sameProblems(b *strings.Builder, rep *replay.Report, pct int) {
	have := hasCI(rep)
	fmt.Fprintf(b, "\n## Every K on the same problems (threshold %.1f)\n\n", float64(pct)/100)
	if have {
		fmt.Fprintf(b, "Brackets: 95%% bootstrap interval, %d resamples of the problems (seed %d), percentile method. ", rep.Resamples, rep.Seed)
	}
	b.WriteString("Precision is pooled over kept tests; yield is the share of a problem's panels keeping at least one test, averaged over problems. " +
		"**Faults caught**: the problem's recorded implementations outside the panel, and the share of them each suite rejects " +
		"(fails on at least one of its tests), pooled over (panel, implementation) pairs: the vetted suite (the panel's kept tests), " +
		"the oracle (every test labelled correct) and all proposed tests. Wrong implementations should be rejected, correct ones not.\n")
	for _, kind := range rep.Kinds {
		rows := comparableRows(rep, kind, pct)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n**%s**, on %s.", kind, setNote(rows, rep.Problems))
		if rows[0].Set == replay.CommonProblems {
			b.WriteString(" The others have too few coder sources or coders for the largest K; the tables below in BASELINE.md's layout keep them for the smaller K.")
		}
		b.WriteString("\n\n")
		b.WriteString("| K | problems | kept precision | yield | per-problem precision, mean | problems < 80% | " +
			"wrong caught: vetted | correct rejected: vetted | wrong caught: oracle | correct rejected: oracle | wrong caught: all proposed | correct rejected: all proposed |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range rows {
			f := faultCells(r, have)
			fmt.Fprintf(b, "| %d | %d | **%s** | %s | %s | %d of %d | **%s** | %s | %s | %s | %s | %s |\n", r.K, r.Problems,
				withCI(r.Figures.KeptPrecision, r.CI.Precision, have), withCI(r.Figures.AnyKept, r.CI.Yield, have),
				pc(r.Spread.MeanPrecision), r.Spread.Below80, r.Spread.Problems, f[0], f[1], f[2], f[3], f[4], f[5])
		}
	}
}

// spreadSection lists the problems where diverse panels' vetted tests are worst.
func spreadSection(b *strings.Builder, rep *replay.Report, pct int) {
	kind := replay.Diverse.String()
	rows := comparableRows(rep, kind, pct)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Per-problem precision (diverse, threshold %.1f)\n\n", float64(pct)/100)
	fmt.Fprintf(b, "Pooled precision hides the problems where the panel's majority shared a wrong belief. "+
		"Per problem: kept precision over all its panels; on %s.\n\n", setNote(rows, rep.Problems))
	b.WriteString("| K | problems with a kept test | mean | < 80% | < 50% | worst |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		var worst []string
		for _, w := range r.Spread.Worst {
			worst = append(worst, fmt.Sprintf("%s %s", w.TaskID, pc(w.Precision)))
		}
		fmt.Fprintf(b, "| %d | %d | %s | %d | %d | %s |\n", r.K, r.Spread.Problems, pc(r.Spread.MeanPrecision),
			r.Spread.Below80, r.Spread.Below50, strings.Join(worst, ", "))
	}
	r := rows[0]
	for _, row := range rows {
		if row.K == 5 {
			r = row
		}
	}
	if len(r.Spread.Worst) == 0 {
		return
	}
	fmt.Fprintf(b, "\nThe worst problems at K=%d, each with the panel that kept the most wrong tests there "+
		"(✓ passes the hidden tests, ✗ does not) and what that panel kept:\n", r.K)
	for _, w := range r.Spread.Worst {
		var panel []string
		for _, c := range w.Panel {
			panel = append(panel, c.ID+" "+mark(c.Correct))
		}
		fmt.Fprintf(b, "\n- **%s**: %s precision (%d of %d kept tests correct, all panels). Panel: %s.\n",
			w.TaskID, pc(w.Precision), w.KeptCorrect, w.Kept, strings.Join(panel, ", "))
		shown := slices.SortedStableFunc(slices.Values(w.Vetted), func(x, y replay.VettedTest) int {
			return cmp.Compare(one(x.Correct), one(y.Correct)) // wrong ones first
		})
		for _, t := range shown[:min(vettedShown, len(shown))] {
			fmt.Fprintf(b, "  - %s `%s` (%s)\n", mark(t.Correct), oneLine(t.Code, 160), t.ID)
		}
		if len(shown) > vettedShown {
			fmt.Fprintf(b, "  - and %d more kept tests\n", len(shown)-vettedShown)
		}
	}
}

// vettedShown caps the kept tests listed for a worst problem's panel.
const vettedShown = 6

func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// oneLine keeps a test's code on one table-safe line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "`", "'")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
