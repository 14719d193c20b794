package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
