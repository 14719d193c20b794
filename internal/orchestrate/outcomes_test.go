package orchestrate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Every reason in the table of outcomes says everything the report, the vet verdict, the
// App and the decisions read about it: a reason added with a field left out fails here.
func TestEveryReasonHasEveryField(t *testing.T) {
	kinds := []orchestrate.EvidenceKind{orchestrate.EvidenceStuckCoder, orchestrate.EvidenceStackedTests, orchestrate.EvidenceLastRounds,
		orchestrate.EvidenceWhatRanOut, orchestrate.EvidencePreflight, orchestrate.EvidenceOwnChecks}
	seen := map[orchestrate.Outcome]bool{}
	for _, r := range orchestrate.Reasons() {
		t.Run(string(r.Outcome), func(t *testing.T) {
			assert.Regexp(t, `^[A-Z_]+$`, string(r.Outcome), "the name shows in reports and summary.json")
			assert.False(t, seen[r.Outcome], "declared once")
			seen[r.Outcome] = true
			assert.NotEmpty(t, r.Title)
			assert.True(t, strings.HasSuffix(r.Next, "."), "Next is a sentence for a human: %q", r.Next)
			assert.Contains(t, kinds, r.Evidence, "the report knows how to back it")
			require.NotEmpty(t, r.Decisions, "a human can always take the run on")
			for _, verb := range r.Decisions {
				assert.True(t, orchestrate.IsDecisionVerb(verb), "%q is a decision", verb)
			}
			assert.Contains(t, []string{orchestrate.VetSuccess, orchestrate.VetNeutral}, r.Vet)
			assert.Equal(t, r.ClosesIssue, r.Vet == orchestrate.VetSuccess,
				"an issue is closed exactly when the suite vouches for a patch that passes it")
			assert.Equal(t, r, orchestrate.ReasonFor(r.Outcome))
		})
	}
}

// Each decision a stop offers is one the run would take: Check accepts it as offered.
func TestEveryOfferedDecisionFits(t *testing.T) {
	for _, r := range orchestrate.Reasons() {
		t.Run(string(r.Outcome), func(t *testing.T) {
			s := orchestrate.Standing{Protocol: "dixit", Outcome: r.Outcome, Rounds: 2, MaxRounds: 2, Coders: []string{"c1", "c2"},
				Vetted: []orchestrate.SuiteEntry{{ID: "t1-1", Number: 1}}, Hibernated: []string{"t2"}, Replaceable: true}
			offers := orchestrate.Fitting(s)
			require.NotEmpty(t, offers)
			assert.Equal(t, r.Decisions[0], strings.Fields(offers[0].Usage)[0], "the row's first decision comes first")
			assert.Equal(t, "accept <coder>", offers[len(offers)-1].Usage)
			for _, o := range offers {
				verb := strings.Fields(o.Usage)[0]
				args := map[string][]string{"drop": {"t1", "wrong"}, "replace": {"c1"}, "accept": {"c1"}, "budget": {"rounds", "10"}}[verb]
				d, err := orchestrate.ParseDecision(verb, args, "alice", time.Unix(0, 0))
				require.NoError(t, err, o.Usage)
				assert.NoError(t, orchestrate.Check(d, s), "%s fits %s", o.Usage, r.Outcome)
			}
		})
	}
}

// An outcome the table does not know reads as the conservative stop: a budget ran out.
func TestAnUnknownOutcomeReadsAsABudgetStop(t *testing.T) {
	r := orchestrate.ReasonFor("SOMETHING_NEW")
	assert.Equal(t, orchestrate.Outcome("SOMETHING_NEW"), r.Outcome)
	assert.Equal(t, orchestrate.ReasonFor(orchestrate.BudgetExhausted).Next, r.Next)
	assert.False(t, r.ClosesIssue)
}
