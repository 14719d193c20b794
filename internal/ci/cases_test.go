package ci

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// judgeCase is one job of a batch and what its verdict must be.
type judgeCase struct {
	name   string
	tree   mapTree // goModule() when nil
	test   []byte
	want   []Outcome // any of these
	runs   int       // expected Runs when > 0
	output string    // expected substring of Output
	// isolated marks properties only bubblewrap provides: asserted only with it.
	isolated bool
	// dangerous cases are not even run without bubblewrap or root (no process limit).
	dangerous bool
	check     func(t *testing.T, v Verdict)
}

// runBatch runs all cases as one parallel Run call, as the orchestrator does, then
// checks each verdict in its own subtest.
func runBatch(t *testing.T, l *Local, reruns int, cases []judgeCase) {
	t.Helper()
	contained := l.sb.Bubblewrap() || l.sb.Root()
	var jobs []Job
	var idx []int
	for i, c := range cases {
		if c.dangerous && !contained {
			continue
		}
		tree := c.tree
		if tree == nil {
			tree = goModule()
		}
		jobs = append(jobs, Job{Coder: c.name, Tree: tree, Test: Test{ID: fmt.Sprintf("t%d", i), Content: c.test}})
		idx = append(idx, i)
	}
	vs, err := l.Run(context.Background(), reruns, jobs)
	require.NoError(t, err)
	require.Len(t, vs, len(jobs))
	got := map[int]Verdict{}
	for k, i := range idx {
		got[i] = vs[k]
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ran := got[i]
			if !ran {
				t.Skip("not run without bubblewrap or root: nothing would contain it")
			}
			if c.isolated && !l.sb.Bubblewrap() {
				t.Skipf("needs bubblewrap (unavailable here; CI has it); verdict was %s", v.Outcome)
			}
			assert.Contains(t, c.want, v.Outcome, "output:\n%s", v.Output)
			if c.runs > 0 {
				assert.Equal(t, c.runs, v.Runs)
			}
			assert.Contains(t, v.Output, c.output)
			assert.LessOrEqual(t, len(v.Output), MaxOutput+64)
			assert.False(t, v.Cached)
			assert.Positive(t, v.Seconds)
			if c.check != nil {
				c.check(t, v)
			}
		})
	}
}
