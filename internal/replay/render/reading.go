package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// baseline is BASELINE.md's row for each kind and size (threshold 0.6, seed 20261122, 20
// panels): kept tests, kept precision, Dixit pick and CodeT pick on the same panels, as
// printed there. A replay with the same seed and panels should print the same.
var baseline = map[string][4]string{
	"diverse/3":                            {"32529", "89.9%", "65.7%", "69.9%"},
	"diverse/5":                            {"52119", "94.1%", "72.9%", "75.1%"},
	"diverse/7":                            {"53522", "97.8%", "73.1%", "78.4%"},
	"random/3":                             {"34198", "84.5%", "31.5%", "38.3%"},
	"random/5":                             {"44224", "89.5%", "38.3%", "46.3%"},
	"random/7":                             {"31161", "95.3%", "38.5%", "50.0%"},
	"same:codet/codegen-16b/3":             {"34142", "82.2%", "26.4%", "31.3%"},
	"same:codet/codegen-16b/5":             {"41527", "87.4%", "31.9%", "36.6%"},
	"same:codet/codegen-16b/7":             {"29294", "94.0%", "32.4%", "41.0%"},
	"same:agentcoder/gpt-3.5-turbo-1106/3": {"36822", "94.2%", "59.9%", "67.9%"},
	"same:agentcoder/gpt-3.5-turbo-1106/5": {"40820", "95.9%", "63.0%", "67.1%"},
}

// compareBaseline counts the rows BASELINE.md has and how many of them this replay prints
// identically (kept tests, kept precision, Dixit pick, CodeT pick).
func compareBaseline(rep *replay.Report) (rows, same int, differ []string) {
	for _, key := range slices.Sorted(maps.Keys(baseline)) {
		want := baseline[key]
		i := strings.LastIndexByte(key, '/')
		var k int
		fmt.Sscan(key[i+1:], &k)
		r, ok := rep.Find(key[:i], k, headline)
		if !ok {
			continue
		}
		rows++
		f := r.Figures
		got := [4]string{fmt.Sprint(f.KeptTests), pc(f.KeptPrecision), pc(f.DixitPick), pc(f.CodeTSame)}
		if got == want {
			same++
		} else {
			differ = append(differ, fmt.Sprintf("%s K=%d (%s against %s)", key[:i], k, strings.Join(got[:], ", "), strings.Join(want[:], ", ")))
		}
	}
	return rows, same, differ
}

// reading writes the "Reading the figures" section from the numbers themselves.
func reading(b *strings.Builder, rep *replay.Report) {
	b.WriteString("\n## Reading the figures\n\n")
	baseRows, same, differ := compareBaseline(rep)
	switch {
	case rep.Problems != 164:
		fmt.Fprintf(b, "- **BASELINE.md** (humaneval-replay's) covers its 164 problems; this replay has %d (another data set, or a part of that one), so its figures are not comparable with that file's.\n", rep.Problems)
	case rep.Seed != replay.DefaultSeed || rep.Panels != 20:
		fmt.Fprintf(b, "- **BASELINE.md** drew 20 panels per problem on 164 problems with seed %d; this replay drew %d with seed %d, "+
			"so its figures should differ from BASELINE.md's only by sampling noise (other seeds move diverse kept precision by up to about 1.5 pt).\n",
			replay.DefaultSeed, rep.Panels, rep.Seed)
	case baseRows == 0:
	case same == baseRows:
		fmt.Fprintf(b, "- **Same panels as BASELINE.md.** All %d of its rows come out the same here: kept tests, kept precision, Dixit pick and CodeT pick.\n", baseRows)
	default:
		fmt.Fprintf(b, "- **BASELINE.md:** %d of %d rows print the same; the others differ (%s). The panels should be the same: this is a bug to look into.\n",
			same, baseRows, strings.Join(differ, "; "))
	}
	pct, have := headlineOf(rep), hasCI(rep)
	rows := comparableRows(rep, replay.Diverse.String(), pct)
	var prec, yield, picks, caught []string
	for _, r := range rows {
		f := r.Figures
		prec = append(prec, fmt.Sprintf("%s at K=%d", withCI(f.KeptPrecision, r.CI.Precision, have), r.K))
		yield = append(yield, fmt.Sprintf("%s at K=%d", withCI(f.AnyKept, r.CI.Yield, have), r.K))
		picks = append(picks, fmt.Sprintf("K=%d: Dixit %s, CodeT %s, hybrid %s (hybrid − CodeT %s)",
			r.K, pc(f.DixitPick), pc(f.CodeTSame), pc(f.HybridSame), diff(f.HybridMinusCodeT)))
		caught = append(caught, fmt.Sprintf("K=%d: %s of the wrong, %s of the correct", r.K, pc(f.Faults.VettedWrong), pc(f.Faults.VettedCorrect)))
	}
	if len(rows) > 0 {
		fmt.Fprintf(b, "- **Vetted tests (diverse panels)**, on %s. Kept precision %s; panels keeping at least one test %s.\n",
			setNote(rows, rep.Problems), strings.Join(prec, ", "), strings.Join(yield, ", "))
		fl := rows[0].Figures.Faults
		fmt.Fprintf(b, "- **Faults caught (diverse).** The vetted suite rejects, of the recorded implementations outside the panel, %s; "+
			"the oracle (all correct-labelled tests) %s / %s, all proposed tests %s / %s at K=%d.%s\n", strings.Join(caught, "; "),
			pc(fl.OracleWrong), pc(fl.OracleCorrect), pc(fl.AllWrong), pc(fl.AllCorrect), rows[0].K, faultsVerdict(fl))
		var below []string
		for _, r := range rows {
			below = append(below, fmt.Sprintf("K=%d: %d of %d problems below 80%% (mean per problem %s)", r.K, r.Spread.Below80, r.Spread.Problems, pc(r.Spread.MeanPrecision)))
		}
		fmt.Fprintf(b, "- **Per problem (diverse).** %s. On those problems the panel's majority shared a wrong belief; "+
			"the section above lists the worst with their panels.\n", strings.Join(below, "; "))
		fmt.Fprintf(b, "- **Picks on the panels where Dixit picks (diverse).** %s.\n", strings.Join(picks, "; "))
	}
	b.WriteString("- **How to read a pick difference.** Each is paired on the same panels; a difference smaller than about " +
		"two standard errors is not evidence either way.\n")
	calibrationReading(b, rep)
	b.WriteString("- **What this does not measure.** This is a static replay: coders never see the vetted tests or repair their " +
		"code, as the protocol's catch-up step would make them, and nothing is rerun (each matrix cell was executed once), " +
		"so flakiness and reruns are outside it (`bot eval --replay --execute` runs the recorded code again through the judge). It measures the rule as a filter and the pick rules as selectors.\n")
}

// faultsVerdict says what the faults figures show, only where they show it: on a corpus
// whose proposed tests are nearly all correct (data/mbpp-replay), all of them turn away
// no correct code either.
func faultsVerdict(f replay.FaultRates) string {
	if f.AllCorrect >= 0.5 && f.VettedCorrect < 0.1 {
		return " The vetted suite turns away little correct code; all proposed tests would turn away most of it."
	}
	return ""
}

// calibrationReading sums up the diverse calibration: K at the headline threshold, then
// the threshold at the largest K, all on one problem set.
func calibrationReading(b *strings.Builder, rep *replay.Report) {
	kind, pct := replay.Diverse.String(), headlineOf(rep)
	rows := comparableRows(rep, kind, pct)
	if len(rows) == 0 {
		return
	}
	var byK []string
	for _, r := range rows {
		byK = append(byK, fmt.Sprintf("K=%d %s / %s", r.K, pc(r.Figures.KeptPrecision), pc(r.Figures.AnyKept)))
	}
	fmt.Fprintf(b, "- **Calibration (diverse, precision / yield)**, on %s. At t=%.1f: %s.", setNote(rows, rep.Problems), float64(pct)/100, strings.Join(byK, ", "))
	k := rows[len(rows)-1].K
	var byT []string
	for _, p := range thresholds(rep) {
		if r, ok := rep.Comparable(kind, k, p); ok {
			byT = append(byT, fmt.Sprintf("t=%.1f %s / %s", r.Threshold, pc(r.Figures.KeptPrecision), pc(r.Figures.AnyKept)))
		}
	}
	if len(byT) > 1 {
		fmt.Fprintf(b, " At K=%d: %s.", k, strings.Join(byT, ", "))
	}
	b.WriteString(" A threshold acts only through the smallest passing count it asks for, ⌈tK⌉ (kept iff ⌈tK⌉ ≤ p < K), " +
		"so thresholds that ask for the same count give identical cells, and one that asks for all K keeps nothing.\n")
}
