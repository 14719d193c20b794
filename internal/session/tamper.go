package session

import (
	"fmt"
	"slices"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// vetTampered fails a patch any run of which came out tampered, on a vetted test or on
// another proposal: the judge's own checks in the test's process caught it changing what
// the runner reports, so none of its passes proves anything. The reason comes first.
func vetTampered(v *vet.Verdict) {
	for _, f := range slices.Concat(v.Vetted, v.Others) {
		if f.Patch.Outcome == ci.Tampered {
			v.Conclusion = vet.Failure
			v.Why = fmt.Sprintf("The patch tampered with the test runner on test %s: %s. %s", f.ID, orchestrate.TamperEvidence(f.Patch.Output), v.Why)
			return
		}
	}
}
