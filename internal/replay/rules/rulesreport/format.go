package rulesreport

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// pct is a share with its interval, "76.3% [73.1, 79.0]", or "–" over nothing.
func pct(e rules.Est) string {
	if !e.Defined() {
		return "–"
	}
	return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*e.Value, 100*e.Lo, 100*e.Hi)
}

// bare is a share without its interval.
func bare(e rules.Est) string {
	if !e.Defined() {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*e.Value)
}

// count is a mean count with its interval.
func count(e rules.Est) string {
	if !e.Defined() {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", e.Value, e.Lo, e.Hi)
}

// points is a difference of shares in points with its interval.
func points(e rules.Est) string {
	return fmt.Sprintf("%s [%s, %s] pt", signed(e.Value), signed(e.Lo), signed(e.Hi))
}

func signed(x float64) string {
	s := fmt.Sprintf("%+.1f", 100*x)
	return strings.Replace(s, "-", "−", 1)
}

// PickName is how a report names a pick.
func PickName(p string) string {
	switch p {
	case rules.PickConsensus(rules.Seed):
		return "Dixit (consensus of the seed rule)"
	case rules.PickHybrid(rules.Seed):
		return "hybrid (seed rule)"
	case rules.PickCodeT:
		return "CodeT dual agreement"
	case rules.PickMajority:
		return "majority of identical patches"
	case rules.PickMaxPass:
		return "passes the most LLM tests"
	case rules.PickRandom:
		return "random"
	case rules.PickOracle:
		return "oracle (any resolved coder)"
	}
	if r, ok := strings.CutPrefix(p, "consensus:"); ok {
		return "consensus (" + r + ")"
	}
	if r, ok := strings.CutPrefix(p, "most:"); ok {
		return "most LLM tests among the consensus (" + r + ")"
	}
	if r, ok := strings.CutPrefix(p, "hybrid:"); ok {
		return "hybrid (" + r + ")"
	}
	return p
}

// corpusName is "humaneval (diverse)".
func corpusName(rep *rules.Report) string { return fmt.Sprintf("%s (%s panels)", rep.Corpus, rep.Kind) }
