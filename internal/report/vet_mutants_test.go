package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/mutation"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
)

// The vet review says how strong the vetted suite is on the patch when its mutants were
// measured, and says nothing of mutants when they were not.
func TestVetReviewGivesTheMutationScore(t *testing.T) {
	s := runfile.Summary{Vet: &vet.Verdict{Conclusion: vet.Success, Why: "The patch passes all 3 vetted tests.",
		Mutants: &mutation.Score{Suite: "vetted", Tests: 3, Used: 3, Killed: 9, Mutants: 12}}}
	assert.Contains(t, VetReview(s, "", 0, ""), "Mutation score: the vetted suite kills 9 of 12 mutants of this patch (75 %).\n")
	s.Vet.Mutants = nil
	assert.NotContains(t, VetReview(s, "", 0, ""), "Mutation score")
}

// The review names the gate and lists the proposed tests that joined it beside the vetted
// ones; a failing one is shown with its text, like a failing vetted test.
func TestVetReviewShowsTheTestsThatJoinedTheGate(t *testing.T) {
	pass, fail := ci.Verdict{Outcome: ci.Pass}, ci.Verdict{Outcome: ci.Fail, Output: "want -2, got 0"}
	s := runfile.Summary{TestPath: "dixit_{id}_test.go", Vet: &vet.Verdict{Conclusion: vet.Failure, Why: "The patch fails 1 of 2 tests.", GateShare: 0.6,
		Vetted: []vet.Finding{{ID: "t1-1", Number: 1, Tester: "t1", Patch: pass, PassedBy: []string{"a", "b"}, Implementations: 3}},
		Others: []vet.Finding{
			{ID: "t2-1", Tester: "t2", Patch: fail, PassedBy: []string{"a", "b", "c"}, Implementations: 3, Gated: true, Content: []byte("func TestNeg(t *testing.T) {}")},
			{ID: "t2-2", Tester: "t2", Patch: fail, Implementations: 3},
		}}}
	out := VetReview(s, "", 0, "")
	assert.Contains(t, out, "The gate is the vetted suite and every other proposed test that at least 60 % of the independent implementations pass")
	assert.Contains(t, out, "| test 1 `t1-1` | pass | 2 of 3 |\n| proposed test `t2-1`, not vetted | fail | 3 of 3 |\n")
	assert.Contains(t, out, "<summary>proposed test <code>t2-1</code>, not vetted by t2, which the patch fails (fail)</summary>")
	assert.Contains(t, out, "Of the 1 other proposed test outside the gate")
}
