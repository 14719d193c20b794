package rules

// A panel's contribution is a vector of counters; an instance's is the sum over its
// panels, and a figure is a ratio of two sums over instances, so that the bootstrap can
// resample instances by weighting their vectors.

// Counters of the panel itself, whatever the rule.
const (
	cPanels       = iota
	cTests        // (panel, test) pairs the panel can classify
	cTestsEnv     // (panel, test) pairs left out: an env cell on some panel coder
	cBadPairs     // (panel, held-out unresolved coder) pairs
	cGoodPairs    // (panel, held-out resolved coder) pairs
	cShareCorrect // Σ the share of resolved coders in the panel
	nBase
)

// Counters of one keep rule.
const (
	rKept       = iota // Σ kept tests
	rEmpty             // panels keeping no test: no verdict possible
	rGoldKnown         // kept tests whose gold result is known
	rGoldPass          // … that pass on the gold patch
	rBaseKnown         // kept tests whose base result is known
	rBaseFail          // … that fail on the base
	rBadCaught         // held-out unresolved coders failing a kept test
	rBadEmpty          // … facing an empty suite
	rBadEnv            // … failing none but with an env cell on one: no verdict
	rGoodFailed        // held-out resolved coders failing a kept test
	rGoodEmpty         //
	rGoodEnv           //
	rPassGood          // held-out resolved coders passing a non-empty suite, every cell known
	rPassBad           // held-out unresolved coders doing so
	nRule
)

// Counters of one pick.
const (
	qSum     = iota // Σ the expected correctness of the pick
	qMade           // panels where the pick had something to go on (no fallback)
	qMadeSum        // Σ the expected correctness over those
	nPick
)

// The picks besides the two per rule (consensus:<rule>, hybrid:<rule>).
const (
	PickCodeT    = "codet"    // CodeT's dual agreement over every LLM test
	PickMajority = "majority" // the most frequent identical normalised patch (Agentless)
	PickMaxPass  = "maxpass"  // the coder passing the most LLM tests, uniformly among ties
	PickRandom   = "random"   // a uniform panel coder
	PickOracle   = "oracle"   // any resolved coder in the panel, if there is one
)

// PickConsensus and PickHybrid name a rule's picks: a uniform choice among the panel
// coders that pass every kept test (the Dixit pick for the seed rule), and among those
// the best by CodeT's dual agreement (the hybrid of docs/replay.md).
func PickConsensus(r Rule) string { return "consensus:" + string(r) }
func PickHybrid(r Rule) string    { return "hybrid:" + string(r) }

// PickMost names a rule's third pick: among the coders passing every kept test, the one
// passing the most LLM tests (with none, the panel's).
func PickMost(r Rule) string { return "most:" + string(r) }

// layout places the counters of the rules and picks in one vector.
type layout struct {
	rules []Rule
	picks []string
}

func newLayout(rules []Rule) layout {
	l := layout{rules: rules}
	for _, r := range rules {
		if r != Oracle {
			l.picks = append(l.picks, PickConsensus(r), PickHybrid(r), PickMost(r))
		}
	}
	l.picks = append(l.picks, PickCodeT, PickMajority, PickMaxPass, PickRandom, PickOracle)
	return l
}

func (l layout) size() int              { return nBase + len(l.rules)*nRule + len(l.picks)*nPick }
func (l layout) rule(ri, field int) int { return nBase + ri*nRule + field }
func (l layout) pick(qi, field int) int { return nBase + len(l.rules)*nRule + qi*nPick + field }
func (l layout) pickIndex(name string) int {
	for i, p := range l.picks {
		if p == name {
			return i
		}
	}
	return -1
}

// Bands split panels by the share of resolved coders in them, since the rule is expected
// to fail where most coders are wrong. Band 0 is every panel.
var Bands = []string{"all", "< 0.5", "0.5–0.8", "> 0.8"}

// bandOf is the band of a panel with correct resolved coders out of k: under a half, a
// half to 80 % (both ends included), above 80 %.
func bandOf(correct, k int) int {
	switch {
	case 2*correct < k:
		return 1
	case 5*correct > 4*k:
		return 3
	}
	return 2
}
