package replay

import "fmt"

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
