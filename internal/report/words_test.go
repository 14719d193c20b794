package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
)

// The closing line counts in words and says when its figures add up several invocations.
func TestTotalsSpeakForTheWholeRun(t *testing.T) {
	s := runfile.Summary{Rounds: 1, Vetted: []runfile.VettedTest{{ID: "t1"}}, WallSeconds: 282.4, Invocations: 3,
		Judge:   runfile.Judge{Stats: ci.Stats{Executions: 1, CacheHits: 1, Seconds: 40}},
		Journal: runfile.Journal{Entries: 1, Replayed: 1, Seconds: 0.5}}
	assert.Equal(t, "1 round, 1 vetted test; judge: 1 execution, 1 cache hit, 40.0 s; journal: 1 entry (1 replayed), 0.50 s of 282.4 s wall time over 3 invocations", Totals(s))
	s.Invocations = 1
	assert.NotContains(t, Totals(s), "invocations")
	s.Judge.Sandbox = "bwrap"
	assert.Contains(t, spendSection(s, true, ""), "Judge: 1 execution, 0 test runs, 1 cache hit, 40.0 s (bwrap).")
	s.Invocations = 3
	assert.Contains(t, spendSection(s, true, ""), "4.7 min wall time over 3 invocations.")
}

// A verdict's reason is whole sentences: "(fail). It turns …", never "(fail).; it turns".
func TestVetReasonsAreWholeSentences(t *testing.T) {
	vetted := []runfile.VettedTest{{ID: "t1", OnBase: &runfile.BaseCheck{Outcome: ci.Fail}}, {ID: "t2", OnBase: &runfile.BaseCheck{Outcome: ci.Fail}}}
	findings := []vet.Finding{{ID: "t1", Patch: ci.Verdict{Outcome: ci.Fail}}, {ID: "t2", Patch: ci.Verdict{Outcome: ci.Pass}}}
	why := "The patch fails 1 of 2 vetted tests; test 1, which 5 of 5 independent implementations pass, is the first (fail)."
	got := Turned(why, findings, vetted)
	assert.Equal(t, why+" It turns 1 of the 2 vetted tests that fail on the base revision from failing to passing.", got)
	assert.NotContains(t, got, ".;")
	assert.Equal(t, why, Turned(why, findings, nil), "nothing to say when the base was not checked")
	got = Breaks(why, []ci.Regression{{Test: "TestOld", Reason: "failed in all 3 runs"}})
	assert.Equal(t, "The patch breaks 1 of the repository's own tests that pass on the base (first: TestOld, which failed in all 3 runs). "+why, got)
	one := Turned("The patch passes all 1 vetted tests.", findings[1:], vetted[1:])
	assert.Contains(t, one, "It turns 1 of the 1 vetted test that fail")
}

// Counts of one read as one, in the sections whose numbers are often small.
func TestSectionsCountInWords(t *testing.T) {
	s := runfile.Summary{Outcome: orchestrate.TestersExhausted,
		Evidence: runfile.Evidence{Exhausted: []runfile.RoundClasses{{Round: 2, TooWeak: 1, None: 1}}}}
	got := evidenceSection(s, nil)
	assert.Contains(t, got, "In round 2 no proposal entered the suite: 1 was too weak (every coder passed), 0 too hard, and 1 time a tester had nothing more to propose.")
	one := existingSection(runfile.Summary{Existing: &runfile.Existing{Mode: "all", Runs: 1,
		Set: ci.RegressionSet{Tests: []string{"m/p.TestA"}, Runs: 1}}}, true)
	assert.Contains(t, one, "1 existing test passed in its one run: every coder must keep it passing (all of them), without changing it.")
}
