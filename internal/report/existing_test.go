package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// The section says what guarded the run, what the spec changed, and who broke what.
func TestExistingSection(t *testing.T) {
	s := runfile.Summary{
		Existing: &runfile.Existing{Mode: "affected", Runs: 20,
			Set:     ci.RegressionSet{Tests: []string{"m/p.TestA", "m/p.TestB", "m/p.TestWrap"}, Flaky: []string{"m/p.TestClock"}, Runs: 20},
			Retired: []string{"m/p.TestWrap"},
			Patch:   []ci.Regression{{Test: "m/p.TestB", Reason: "fails: got 4, want 3 | <b>x</b>"}}},
		Coders: []runfile.Coder{{Name: "ada"}, {Name: "dee", Breaks: []ci.Regression{{Test: "m/p.TestA", Reason: "fails: boom"}}}},
	}
	got := existingSection(s, true)
	assert.Contains(t, got, "3 existing tests passed in every one of 20 runs")
	assert.Contains(t, got, "1 flaky test passed in some runs and not in others, so it guards nothing: `m/p.TestClock`.")
	assert.Contains(t, got, "Most coders' first solutions broke `m/p.TestWrap`: the spec changes what it checks, so it guarded nothing in this run.")
	assert.Contains(t, got, "| dee | 1 | `m/p.TestA` | `fails: boom` |")
	assert.Contains(t, got, "| the patch under review | 1 | `m/p.TestB` | `fails: got 4, want 3 \\| <b>x</b>` |", "test output stays inert in a table cell")

	none := existingSection(runfile.Summary{Existing: &runfile.Existing{Note: "the judge cannot run the repository's own tests for toolchain \"maven\" yet: they guard nothing in this run"}}, true)
	assert.Contains(t, none, "The judge cannot run the repository's own tests")
	assert.Empty(t, existingSection(runfile.Summary{}, true))
}
