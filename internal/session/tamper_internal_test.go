package session

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// A patch that passes every vetted test but came out tampered on a proposal that was not
// vetted still fails, and the reason says so first; a patch with no tampered run keeps
// its verdict.
func TestVetTamperedFailsOnAnyTest(t *testing.T) {
	v := vet.Verdict{
		Vetted: []vet.Finding{{ID: "ivy-1", Number: 1, Patch: ci.Verdict{Outcome: ci.Pass}}},
		Others: []vet.Finding{{ID: "jun-2", Patch: ci.Verdict{Outcome: ci.Tampered,
			Output: "PASS\n[dixit] run 3 of 20: tampered: a check of the judge's own (test_split_unit_bounds_45) was skipped: something in the process decides which tests run\n"}}},
	}
	vet.Conclude(&v, orchestrate.TestersExhausted)
	assert.Equal(t, vet.Success, v.Conclusion, "vet alone looks at the vetted tests")
	vetTampered(&v)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Equal(t, "The patch tampered with the test runner on test jun-2: run 3 of 20: tampered: a check of the judge's own (test_split_unit_bounds_45) "+
		"was skipped: something in the process decides which tests run. The patch passes the 1 vetted test, and the testers found nothing more that most independent implementations agree on.", v.Why)

	honest := vet.Verdict{Vetted: []vet.Finding{{ID: "ivy-1", Number: 1, Patch: ci.Verdict{Outcome: ci.Fail}}}}
	vet.Conclude(&honest, orchestrate.TestersExhausted)
	before := honest
	vetTampered(&honest)
	assert.Equal(t, before, honest)
}
