package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// The report covers every reason in the table of outcomes: it says what the stop means
// and gathers the evidence the table names, not a budget line by default.
func TestTheReportCoversEveryReason(t *testing.T) {
	for _, r := range orchestrate.Reasons() {
		t.Run(string(r.Outcome), func(t *testing.T) {
			res := &orchestrate.Result{Outcome: r.Outcome, Reason: "the reason"}
			md := Markdown(NewSummary("r", res), res)
			next := r.Next
			if r.NextNoTests != "" {
				next = r.NextNoTests // this run vetted nothing
			}
			assert.Contains(t, md, next)
			fallback := r.Evidence == orchestrate.EvidenceWhatRanOut || r.Evidence == orchestrate.EvidencePreflight
			assert.Equal(t, fallback, evidence(res).Budget != "", "evidence %s is gathered as such", r.Evidence)
			assert.Equal(t, r.Evidence != orchestrate.EvidencePreflight, strings.Contains(md, "## Why it stopped"))
		})
	}
}
