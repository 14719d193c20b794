package replay

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Rule is the Dixit classification rule: over a panel of K coders a test is kept iff
// Threshold ≤ p/K < 1, where p panel coders pass it. The threshold is in percent so that
// the comparison stays in integers (60 gives BASELINE.md's 5p ≥ 3K).
type Rule struct {
	ThresholdPct int
}

// DixitRule is the seeds' rule, threshold 0.6.
var DixitRule = Rule{ThresholdPct: 60}

// Validate accepts thresholds from 0.5 to 0.8, the range the calibration explores.
func (r Rule) Validate() error {
	if r.ThresholdPct < 50 || r.ThresholdPct > 80 {
		return fmt.Errorf("threshold %d%%: want 50%% to 80%%", r.ThresholdPct)
	}
	return nil
}

// Keep says whether a test passed by p of k panel coders is kept: p=k is uninformative,
// below the threshold the panel does not agree enough.
func (r Rule) Keep(p, k int) bool {
	return 100*p >= r.ThresholdPct*k && p < k
}

// Threshold is the rule's threshold as a fraction.
func (r Rule) Threshold() float64 { return float64(r.ThresholdPct) / 100 }

// KeepsAny says whether some p < k reaches the threshold: with K=3 and 0.7, say, only
// p=3 would, and the rule never keeps a test every coder passes.
func (r Rule) KeepsAny(k int) bool { return r.Keep(k-1, k) }

// ParseSizes reads a comma-separated list of panel sizes, such as "3,5,7,9".
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		k, err := strconv.Atoi(f)
		if err != nil || k < 2 {
			return nil, fmt.Errorf("panel size %q in %q: want whole numbers of at least 2, such as 3,5,7,9", f, s)
		}
		if slices.Contains(out, k) {
			return nil, fmt.Errorf("panel size %d twice in %q", k, s)
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// ParseThresholds reads a comma-separated list of thresholds as fractions, such as
// "0.5,0.6": each from 0.5 to 0.8 in steps of 0.01.
func ParseThresholds(s string) ([]Rule, error) {
	var out []Rule
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		x, err := strconv.ParseFloat(f, 64)
		pct := int(math.Round(100 * x))
		if err != nil || math.Abs(100*x-float64(pct)) > 1e-9 {
			return nil, fmt.Errorf("threshold %q in %q: want fractions with at most two decimals, such as 0.5,0.6", f, s)
		}
		r := Rule{ThresholdPct: pct}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("threshold %q in %q: %w", f, s, err)
		}
		if slices.Contains(out, r) {
			return nil, fmt.Errorf("threshold %s twice in %q", f, s)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Rule) int { return a.ThresholdPct - b.ThresholdPct })
	return out, nil
}
