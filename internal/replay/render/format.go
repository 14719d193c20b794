package render

import (
	"fmt"
	"slices"

	"github.com/dixit-bot/dixit/internal/replay"
)

// headlineOf is the threshold the main tables use: the seeds' 0.6 when it was replayed,
// else the first one replayed.
func headlineOf(rep *replay.Report) int {
	first := -1
	for _, r := range rep.Rows {
		if pctOf(r) == headline {
			return headline
		}
		if first < 0 {
			first = pctOf(r)
		}
	}
	return first
}

// thresholds lists the replayed thresholds in percent, ascending.
func thresholds(rep *replay.Report) []int {
	var pcts []int
	for _, r := range rep.Rows {
		if !slices.Contains(pcts, pctOf(r)) {
			pcts = append(pcts, pctOf(r))
		}
	}
	slices.Sort(pcts)
	return pcts
}

// comparableRows are one kind's rows at a threshold, one per K, on one problem set.
func comparableRows(rep *replay.Report, kind string, pct int) []replay.Row {
	var out []replay.Row
	for _, k := range rep.Sizes {
		if r, ok := rep.Comparable(kind, k, pct); ok {
			out = append(out, r)
		}
	}
	return out
}

// setNote says which problems a kind's comparable rows are on.
func setNote(rows []replay.Row, total int) string {
	if len(rows) == 0 {
		return ""
	}
	if rows[0].Set == replay.CommonProblems {
		return fmt.Sprintf("the %d of %d problems that can have a panel at every K", rows[0].Problems, total)
	}
	return fmt.Sprintf("the same %d problems at every K", rows[0].Problems)
}

// withCI writes a share with its interval: "94.1% [92.0, 95.9]".
func withCI(x float64, iv replay.Interval, have bool) string {
	if !have {
		return pc(x)
	}
	return fmt.Sprintf("%s [%.1f, %.1f]", pc(x), 100*iv.Lo, 100*iv.Hi)
}

// hasCI says whether the report carries bootstrap intervals.
func hasCI(rep *replay.Report) bool { return rep.Resamples > 0 }

// faultCells are a row's six fault rates with intervals: vetted, oracle, all proposed;
// wrong code caught / correct code rejected.
func faultCells(r replay.Row, have bool) [6]string {
	rates := []float64{r.Figures.Faults.VettedWrong, r.Figures.Faults.VettedCorrect, r.Figures.Faults.OracleWrong,
		r.Figures.Faults.OracleCorrect, r.Figures.Faults.AllWrong, r.Figures.Faults.AllCorrect}
	var out [6]string
	for i, x := range rates {
		out[i] = withCI(x, r.CI.Faults[i], have)
	}
	return out
}
