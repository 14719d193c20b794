// Package render is `bot eval --replay` for people: it runs the replay (and --execute) a
// Request asks for, and writes the replay.Report as replay.md (BASELINE.md's tables plus
// the hybrid pick and the calibration), replay.json, and an SVG plot drawn by hand.
package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// headline is the threshold of BASELINE.md's tables, the seeds' 0.6.
const headline = 60

// Markdown writes replay.md.
func Markdown(w io.Writer, rep *replay.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Replay of the Dixit rule on %s\n\n", dataSetName(rep))
	fmt.Fprintf(&b, "%d problems, %d panels per problem for each kind and size, seed %d; panels drawn with %s. "+
		"Definitions as in the data set's BASELINE.md; shares are expected values, not sampled picks.\n\n",
		rep.Problems, rep.Panels, rep.Seed, rep.SeedsUsed)

	pct, have := headlineOf(rep), hasCI(rep)
	th := float64(pct) / 100
	headlineRows := slices.DeleteFunc(slices.Clone(rep.Rows), func(r replay.Row) bool {
		return pctOf(r) != pct || r.Set != replay.AllProblems
	})
	sameProblems(&b, rep, pct)
	chooseSection(&b, rep)

	fmt.Fprintf(&b, "\n## Tests (threshold %.1f), BASELINE.md's layout\n\n", th)
	b.WriteString("Each row on every problem that can have its panel (the problems column): where that differs between K, " +
		"compare K on the same problems above, not here.\n\n")
	b.WriteString("| panel | K | problems | panels | ≥1 kept test | kept tests | kept precision | wrong rejected | correct lost | of which all-pass | all-pass precision |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range headlineRows {
		f := r.Figures
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %d | **%s** | %s | %s | %s | %s |\n", r.Kind, r.K, r.Problems, r.Panels,
			withCI(f.AnyKept, r.CI.Yield, have), f.KeptTests, withCI(f.KeptPrecision, r.CI.Precision, have), pc(f.WrongRejected), pc(f.CorrectLost), pc(f.LostAllPass), pc(f.AllPassPrecision))
	}

	fmt.Fprintf(&b, "\n## Picks (threshold %.1f)\n\nExpected share of picked coders that pass the hidden tests.\n\n", th)
	b.WriteString("| panel | K | panel has a correct coder | random pick | CodeT pick (all panels) | Dixit picks made | Dixit pick | CodeT pick, same panels | random, same panels | kept tests but empty consensus |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range headlineRows {
		f := r.Figures
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | **%s** | %s | %s | %s |\n", r.Kind, r.K,
			pc(f.HasCorrect), pc(f.RandomPick), pc(f.CodeTPick), pc(f.DixitMade), pc(f.DixitPick), pc(f.CodeTSame), pc(f.RandomSame), pc(f.EmptyConsensus))
	}

	fmt.Fprintf(&b, "\n## Kept-test precision by tester (diverse panels, threshold %.1f)\n\n", th)
	var testers []string
	for _, r := range headlineRows {
		for s := range r.Figures.TesterKept {
			if !slices.Contains(testers, s) {
				testers = append(testers, s)
			}
		}
	}
	slices.Sort(testers)
	b.WriteString("| K | " + strings.Join(testers, " | ") + " |\n|---|" + strings.Repeat("---|", len(testers)) + "\n")
	for _, r := range headlineRows {
		if r.Kind != replay.Diverse.String() {
			continue
		}
		fmt.Fprintf(&b, "| %d |", r.K)
		for _, s := range testers {
			fmt.Fprintf(&b, " %s (%d) |", pc(r.Figures.TesterPrecision[s]), r.Figures.TesterKept[s])
		}
		b.WriteString("\n")
	}

	hybrid(&b, headlineRows, th)
	spreadSection(&b, rep, pct)
	calibration(&b, rep)
	reading(&b, rep)
	_, err := io.WriteString(w, b.String())
	return err
}

func hybrid(b *strings.Builder, rows []replay.Row, th float64) {
	fmt.Fprintf(b, "\n## Hybrid pick (threshold %.1f)\n\n", th)
	b.WriteString("The hybrid picks among the consensus coders (those passing every kept test) the ones CodeT's dual agreement " +
		"ranks highest, over all the problem's tests; with no consensus it falls back to CodeT's pick. " +
		"Differences are paired on the same panels, ± one standard error with problems as clusters.\n\n")
	b.WriteString("| panel | K | Dixit picks made | Dixit pick | CodeT pick | **hybrid pick** | hybrid − CodeT | hybrid − Dixit | CodeT, all panels | hybrid, all panels | hybrid − CodeT, all panels |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		f := r.Figures
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | **%s** | %s | %s | %s | %s | %s |\n", r.Kind, r.K, pc(f.DixitMade),
			pc(f.DixitPick), pc(f.CodeTSame), pc(f.HybridSame), diff(f.HybridMinusCodeT), diff(f.HybridMinusDixit),
			pc(f.CodeTPick), pc(f.HybridPick), diff(f.HybridMinusCodeTAll))
	}
}

func calibration(b *strings.Builder, rep *replay.Report) {
	pcts := thresholds(rep)
	b.WriteString("\n## Calibration: panel size and threshold\n\n")
	b.WriteString("![Kept precision and yield against K and the threshold](replay.svg)\n\n")
	b.WriteString("Each cell: kept precision / share of problems' panels keeping at least one test (yield). " +
		"Every threshold is applied to the same drawn panels, and every K of a kind to the same problems (stated under its name). \"nothing kept\" marks a size where the threshold " +
		"would need every coder to pass, which the rule never keeps. " +
		"Reruns do not apply here: the matrix is static, each cell was executed once when the data set was built.\n")
	for _, kind := range rep.Kinds {
		fmt.Fprintf(b, "\n**%s**, on %s\n\n| K | problems |", kind, setNote(comparableRows(rep, kind, pcts[0]), rep.Problems))
		for _, p := range pcts {
			fmt.Fprintf(b, " t=%.1f |", float64(p)/100)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(pcts)) + "\n")
		for _, k := range rep.Sizes {
			cells, problems := []string{}, 0
			for _, p := range pcts {
				r, ok := rep.Comparable(kind, k, p)
				switch {
				case !ok:
					cells = append(cells, "–")
				case !(replay.Rule{ThresholdPct: p}).KeepsAny(k):
					problems = r.Problems
					cells = append(cells, "nothing kept")
				default:
					problems = r.Problems
					cells = append(cells, fmt.Sprintf("%s / %s", pc(r.Figures.KeptPrecision), pc(r.Figures.AnyKept)))
				}
			}
			if problems == 0 {
				continue
			}
			fmt.Fprintf(b, "| %d | %d | %s |\n", k, problems, strings.Join(cells, " | "))
		}
	}
}

func pctOf(r replay.Row) int { return int(r.Threshold*100 + 0.5) }

func pc(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func diff(d replay.Diff) string {
	return fmt.Sprintf("%+.1f ± %.1f pt", 100*d.Mean, 100*d.SE)
}

// dataSetName names the replayed data set, humaneval-replay when the report does not say
// (a report written before it did).
func dataSetName(rep *replay.Report) string {
	if rep.DataSet == "" {
		return "humaneval-replay"
	}
	return rep.DataSet
}
