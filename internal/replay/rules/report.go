package rules

import "math"

// Report is one corpus measured: a row per panel size and band.
type Report struct {
	Corpus string `json:"corpus"`
	Kind   string `json:"panel_kind"`
	// SomeHeldOut: the vet figures count only some held-out coders (Corpus.HeldOut). The
	// picks are the same as on the corpus without the filter.
	SomeHeldOut bool     `json:"some_held_out,omitempty"`
	Instances   int      `json:"instances"`
	Seed        int64    `json:"seed"`
	PanelsPer   int      `json:"panels_per_instance"`
	Resamples   int      `json:"bootstrap_resamples"`
	Rules       []Rule   `json:"rules"`
	Picks       []string `json:"picks"`
	Notes       []string `json:"notes,omitempty"`
	Skipped     []string `json:"skipped,omitempty"`
	Rows        []Row    `json:"rows"`
}

// Row is one panel size K and band of the share of resolved coders in the panel.
type Row struct {
	K         int     `json:"k"`
	Band      string  `json:"band"`
	Instances int     `json:"instances"` // with at least one panel in the band
	Panels    int     `json:"panels"`
	Share     float64 `json:"share_resolved"` // mean share of resolved coders in a panel
	Tests     float64 `json:"tests_per_panel"`
	EnvOut    Est     `json:"env_left_out"` // share of (panel, test) pairs left out for an env cell
	HeldOut   HeldOut `json:"held_out"`

	Rules []RuleFigures `json:"rules"`
	Picks []PickFigures `json:"picks"`

	pickReps map[string][]float64 // each pick's resampled values, for paired differences
}

// HeldOut counts the (panel, held-out coder) pairs the vet figures are over.
type HeldOut struct {
	Unresolved int `json:"unresolved"`
	Resolved   int `json:"resolved"`
}

// RuleFigures are what one keep rule's vetted suite is and what it says.
type RuleFigures struct {
	Rule Rule `json:"rule"`

	Kept          Est `json:"kept_per_panel"` // tests; Over = panels
	Empty         Est `json:"empty"`          // share of panels keeping nothing
	GoldPrecision Est `json:"gold_precision"` // kept tests passing on the gold patch
	FailsOnBase   Est `json:"fails_on_base"`  // kept tests failing on the base

	// The gate, over held-out coders: an empty suite or an env cell is no verdict, neither
	// caught nor passed.
	Caught            Est `json:"unresolved_caught"`
	ResolvedFailed    Est `json:"resolved_failed"`
	ResolvedIfPasses  Est `json:"p_resolved_given_pass"`
	NoVerdict         Est `json:"no_verdict"`
	CaughtWithVerdict Est `json:"unresolved_caught_given_verdict"`
}

// PickFigures are how often one pick resolves the issue.
type PickFigures struct {
	Pick    string `json:"pick"`
	Correct Est    `json:"correct"`
	Made    Est    `json:"made"` // share of panels where it did not fall back
	// WhenMade is its correctness on those panels alone (BASELINE.md's "Dixit pick").
	WhenMade Est `json:"correct_when_made"`
	// Solvable is its correctness on the panels holding a resolved coder: where most
	// instances have few, the panels where no pick can be right would hide the differences.
	Solvable Est `json:"correct_when_solvable"`
}

type rowKey struct {
	k    int
	band string
}

// newRow computes a row's figures and intervals from its instances' vectors.
func newRow(l layout, key rowKey, vecs [][]float64, weights [][]int32) Row {
	ms := []metric{
		func(s []float64) (float64, float64) { return s[cTestsEnv], s[cTests] + s[cTestsEnv] },
	}
	for ri := range l.rules {
		ms = append(ms, ruleMetrics(l, ri)...)
	}
	oracle := l.pick(l.pickIndex(PickOracle), qSum) // Σ over panels holding a resolved coder
	for qi := range l.picks {
		ms = append(ms,
			func(s []float64) (float64, float64) { return s[l.pick(qi, qSum)], s[cPanels] },
			func(s []float64) (float64, float64) { return s[l.pick(qi, qMade)], s[cPanels] },
			func(s []float64) (float64, float64) { return s[l.pick(qi, qMadeSum)], s[l.pick(qi, qMade)] },
			func(s []float64) (float64, float64) { return s[l.pick(qi, qSum)], s[oracle] })
	}
	ests, reps := estimate(vecs, weights, l.size(), ms)
	total := sums(vecs, nil, l.size())
	row := Row{K: key.k, Band: key.band, Panels: int(total[cPanels]), EnvOut: ests[0],
		HeldOut:  HeldOut{Unresolved: int(total[cBadPairs]), Resolved: int(total[cGoodPairs])},
		pickReps: map[string][]float64{}}
	if row.Panels > 0 {
		row.Share = total[cShareCorrect] / total[cPanels]
		row.Tests = total[cTests] / total[cPanels]
	}
	for _, v := range vecs {
		if v[cPanels] > 0 {
			row.Instances++
		}
	}
	at := 1
	for _, r := range l.rules {
		e := ests[at : at+nRuleMetrics]
		row.Rules = append(row.Rules, RuleFigures{Rule: r, Kept: e[0], Empty: e[1], GoldPrecision: e[2], FailsOnBase: e[3],
			Caught: e[4], ResolvedFailed: e[5], ResolvedIfPasses: e[6], NoVerdict: e[7], CaughtWithVerdict: e[8]})
		at += nRuleMetrics
	}
	for _, q := range l.picks {
		row.Picks = append(row.Picks, PickFigures{Pick: q, Correct: ests[at], Made: ests[at+1], WhenMade: ests[at+2], Solvable: ests[at+3]})
		row.pickReps[q] = reps[at]
		at += 4
	}
	return row
}

const nRuleMetrics = 9

// ruleMetrics are rule ri's figures, in RuleFigures' order.
func ruleMetrics(l layout, ri int) []metric {
	f := func(field int) int { return l.rule(ri, field) }
	return []metric{
		func(s []float64) (float64, float64) { return s[f(rKept)], s[cPanels] },
		func(s []float64) (float64, float64) { return s[f(rEmpty)], s[cPanels] },
		func(s []float64) (float64, float64) { return s[f(rGoldPass)], s[f(rGoldKnown)] },
		func(s []float64) (float64, float64) { return s[f(rBaseFail)], s[f(rBaseKnown)] },
		func(s []float64) (float64, float64) { return s[f(rBadCaught)], s[cBadPairs] },
		func(s []float64) (float64, float64) { return s[f(rGoodFailed)], s[cGoodPairs] },
		func(s []float64) (float64, float64) { return s[f(rPassGood)], s[f(rPassGood)] + s[f(rPassBad)] },
		func(s []float64) (float64, float64) {
			return s[f(rBadEmpty)] + s[f(rBadEnv)] + s[f(rGoodEmpty)] + s[f(rGoodEnv)], s[cBadPairs] + s[cGoodPairs]
		},
		func(s []float64) (float64, float64) {
			return s[f(rBadCaught)], s[cBadPairs] - s[f(rBadEmpty)] - s[f(rBadEnv)]
		},
	}
}

// Row finds the row for k and band.
func (r *Report) Row(k int, band string) (*Row, bool) {
	for i := range r.Rows {
		if r.Rows[i].K == k && r.Rows[i].Band == band {
			return &r.Rows[i], true
		}
	}
	return nil, false
}

// Rule is the row's figures for rule.
func (row *Row) Rule(rule Rule) (RuleFigures, bool) {
	for _, f := range row.Rules {
		if f.Rule == rule {
			return f, true
		}
	}
	return RuleFigures{}, false
}

// Pick is the row's figures for pick.
func (row *Row) Pick(pick string) (PickFigures, bool) {
	for _, f := range row.Picks {
		if f.Pick == pick {
			return f, true
		}
	}
	return PickFigures{}, false
}

// PickDiff is pick a's correctness minus pick b's on the same panels, with its interval
// from the same resamples (paired: the interval of the difference, not two intervals).
func (row *Row) PickDiff(a, b string) (Est, bool) {
	fa, okA := row.Pick(a)
	fb, okB := row.Pick(b)
	if !okA || !okB || !fa.Correct.Defined() {
		return Est{}, false
	}
	ra, rb := row.pickReps[a], row.pickReps[b]
	d := make([]float64, len(ra))
	for i := range ra {
		d[i] = ra[i] - rb[i] // NaN when the resample has no panel in this row
	}
	e := Est{Value: fa.Correct.Value - fb.Correct.Value, Over: fa.Correct.Over}
	if len(d) > 0 {
		e.Lo, e.Hi = percentile(d)
	}
	if math.IsNaN(e.Value) {
		return Est{}, false
	}
	return e, true
}
