package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

// Each escalation reason has its golden PR body: a change to what a reviewer reads shows
// up as a diff of these files (go test ./internal/report -update rewrites them).
func TestGoldenReportPerEscalationReason(t *testing.T) {
	want := map[string]orchestrate.Outcome{
		"testers_exhausted":      orchestrate.TestersExhausted,
		"coders_stuck":           orchestrate.CodersStuck,
		"all_testers_hibernated": orchestrate.AllTestersHibernated,
		"budget_exhausted":       orchestrate.BudgetExhausted,
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, res := f.play(t)
			require.Equal(t, want[f.name], res.Outcome, "the fixture reaches its reason")
			body := Render(s, res, Options{Preface: "Closes #7\n\n", Limit: PRLimit, FullReport: "https://github.com/o/r-dixit/blob/dixit/7-report/report.md"})
			path := filepath.Join("testdata", "golden", f.name+".md")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			}
			golden, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./internal/report -update to create it")
			assert.Equal(t, string(golden), body)
		})
	}
}

// The pick follows the hybrid rule that the replay favours: consensus first, then dual
// agreement, then the probe, then the size of the change, then the configured order.
func TestChooseFollowsTheHybridRule(t *testing.T) {
	s, _ := fixtures[0].play(t) // every coder passes the whole suite at the end
	base := *s.Comparison
	base.Differential = nil
	cases := []struct {
		name  string
		dual  map[string]int
		sizes map[string]int
		want  string
		why   string
	}{
		{"dual agreement decides", map[string]int{"c1": 4, "c2": 9, "c3": 9, "c4": 2}, map[string]int{"c2": 50, "c3": 10}, "c3", "smallest"},
		{"a unique top score", map[string]int{"c1": 4, "c2": 12, "c3": 9, "c4": 2}, nil, "c2", "dual-agreement score is the highest (12"},
		{"all tied: the smallest change", map[string]int{}, map[string]int{"c1": 30, "c2": 30, "c3": 5, "c4": 30}, "c3", "smallest (5 lines)"},
		{"nothing tells them apart", map[string]int{}, map[string]int{"c1": 1, "c2": 1, "c3": 1, "c4": 1}, "c1", "configured order"},
		{"a coder that changed nothing is left out", map[string]int{"c1": 9, "c2": 9}, map[string]int{"c2": 40, "c3": 5, "c4": 5}, "c2",
			"c1 changed nothing from the base revision"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Dual, c.DualTests = tc.dual, 7
			c.Touched = nil
			for _, coder := range s.Coders {
				c.Touched = append(c.Touched, runfile.CoderDiff{Coder: coder.Name, Added: tc.sizes[coder.Name]})
			}
			p := Choose(s, c)
			assert.Equal(t, tc.want, p.Coder)
			assert.True(t, p.Agreed)
			assert.Contains(t, p.Why, tc.why)
		})
	}

	// A coder that wrote its own tests is not the one that loses the size tie-break, and
	// the pick says how the tie was settled when size narrowed but did not decide.
	c := base
	c.Dual, c.DualTests = map[string]int{}, 7
	c.Touched = []runfile.CoderDiff{{Coder: "c1", Added: 60, OwnTests: 50}, {Coder: "c2", Added: 10}, {Coder: "c3", Added: 30}, {Coder: "c4", Added: 30}}
	p := Choose(s, c)
	assert.Equal(t, "c1", p.Coder, p.Why)
	assert.Contains(t, p.Why, "Of these, c1, c2 change the fewest lines (10 each, not counting the coders' own tests)")
	assert.Contains(t, p.Why, "first in the configured order")

	stuck, _ := fixtures[1].play(t) // c4 never passes
	c = *stuck.Comparison
	c.Dual = map[string]int{"c1": 3, "c2": 3, "c3": 3, "c4": 8}
	assert.NotEqual(t, "c4", Choose(stuck, c).Coder, "a coder failing a vetted test is never picked while another passes them all")
	accepted := stuck
	accepted.Accepted = "c4"
	accepted.Decisions = []orchestrate.AppliedDecision{{Decision: orchestrate.Decision{ID: "1", Verb: orchestrate.DecideAccept,
		Args: []string{"c4"}, Reason: "its failure is the test's fault", By: "maria"}}}
	p = Choose(accepted, c)
	assert.Equal(t, "c4", p.Coder, "a human's accept overrides the rule")
	assert.False(t, p.Agreed)
	assert.Equal(t, "c4's implementation was accepted by @maria: its failure is the test's fault.", p.Why)
	none := stuck
	none.Events = append(none.Events, orchestrate.Event{Kind: orchestrate.EvVet, Test: "x"})
	none.Vetted = append(none.Vetted, runfile.VettedTest{ID: "x", FailedBy: []string{"c1", "c2", "c3", "c4"}})
	p = Choose(none, c)
	assert.Equal(t, "c4", p.Coder, "with no consensus, CodeT's pick")
	assert.False(t, p.Agreed)
	assert.Contains(t, p.Why, "CodeT's pick")
}

// The default rule ranks the consensus by the proposed tests each passes before dual
// agreement, and says so; the setting names the hybrid instead.
func TestChooseFollowsTheRuleTheSettingsName(t *testing.T) {
	s, _ := fixtures[0].play(t) // every coder passes the whole suite at the end
	c := *s.Comparison
	c.Differential = nil
	c.DualTests = 7
	c.Dual = map[string]int{"c1": 4, "c2": 12, "c3": 9, "c4": 2}
	c.Proposed = map[string]int{"c1": 5, "c2": 4, "c3": 6, "c4": 6}
	c.Touched = []runfile.CoderDiff{{Coder: "c1", Added: 9}, {Coder: "c2", Added: 9}, {Coder: "c3", Added: 9}, {Coder: "c4", Added: 9}}

	p := Choose(s, c)
	assert.Equal(t, "c2", p.Coder, "the default is the hybrid: "+p.Why)
	assert.NotContains(t, p.Why, "pass the most")

	c.PickRule = "most_tests"
	p = Choose(s, c)
	assert.Equal(t, "c3", p.Coder, p.Why)
	assert.Contains(t, p.Why, "Of the 7 proposed tests, c3, c4 pass the most (6 each). ")
	assert.Contains(t, p.Why, "its dual-agreement score is the highest (9")

	c.Proposed = nil // a run from before the counts: the step is left out
	assert.Equal(t, "c2", Choose(s, c).Coder)
}

// The other protocols choose for themselves: the pick is the coder they accepted.
func TestTheOtherProtocolsPickWhatTheyAccepted(t *testing.T) {
	s := runfile.Summary{Protocol: "tdg", Final: "p2", Coders: []runfile.Coder{{Name: "p1"}, {Name: "p2"}}}
	p := Choose(s, runfile.Comparison{Dual: map[string]int{"p1": 9}})
	assert.Equal(t, "p2", p.Coder)
	assert.True(t, p.Agreed)
	s.Final = ""
	p = Choose(s, runfile.Comparison{})
	assert.Equal(t, "p1", p.Coder)
	assert.False(t, p.Agreed)
	assert.Contains(t, p.Why, "accepted no work")
}
