package orchestrate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci"
)

// What agents read of a tampered run is a summary: the judge's line names its own check,
// which code under test must never learn. A failure of another kind is read in full.
func TestAgentsReadATamperedRunOnlyAsASummary(t *testing.T) {
	tampered := ci.Verdict{Outcome: ci.Tampered, Output: "=== RUN   TestParseLineEmpty41\n[dixit] run 1 of 20: tampered: a check of the judge's own " +
		"that must fail (TestParseLineEmpty41) was reported as pass: something in the test's process changes what the runner reports\n"}
	failed := ci.Verdict{Outcome: ci.Fail, Output: "--- FAIL: TestParse: want 1 got 2"}
	msg := ownTestsFail(2, []ownFailure{
		{Path: "a_test.go", Outcome: tampered.Outcome, Output: seenByCoder(tampered)},
		{Path: "b_test.go", Outcome: failed.Outcome, Output: seenByCoder(failed)},
	})
	assert.NotContains(t, msg, "TestParseLineEmpty41")
	assert.NotContains(t, msg, "[dixit]")
	assert.Contains(t, msg, "a_test.go (tampered):\n"+tamperedRun)
	assert.Contains(t, msg, "--- FAIL: TestParse: want 1 got 2")

	b := retryRequest("analysis", []candidateFailure{{Coder: "p1", Failed: []ownFailure{{Path: "t1", Outcome: ci.Tampered, Output: seenByCoder(tampered)}}}})
	assert.NotContains(t, b, "TestParseLineEmpty41")
	assert.Contains(t, b, tamperedRun)
}
