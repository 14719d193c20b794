package orchestrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// tamperingJudge answers tampered for the trees named (their code rewrites what the
// runner reports), for the tests named (they end their own process) and for the pairs
// "tree test" named (code that tampers only under some tests), as ci.Local does.
type tamperingJudge struct {
	inner               ci.Judge
	trees, tests, pairs map[string]bool
}

func (j tamperingJudge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	vs, err := j.inner.Run(ctx, reruns, jobs)
	for i, job := range jobs {
		if err == nil && (j.trees[job.Tree.Hash()] || j.tests[string(job.Test.Content)] || j.pairs[job.Tree.Hash()+" "+string(job.Test.Content)]) {
			vs[i] = ci.Verdict{Outcome: ci.Tampered, Runs: 1, Output: fmt.Sprintf("=== RUN   TestAdd\n[dixit] run 1 of %d: tampered: a check of the judge's own that must fail (TestParseLineEmpty41) was reported as pass: something in the test's process changes what the runner reports\n", reruns)}
		}
	}
	return vs, err
}

func tampering(trees, tests []string) func(ci.Judge) ci.Judge {
	return func(j ci.Judge) ci.Judge { return tamperingJudge{inner: j, trees: set(trees), tests: set(tests)} }
}

func classified(events []orchestrate.Event, test string) *orchestrate.Event {
	for i, ev := range events {
		if ev.Kind == orchestrate.EvClassify && ev.Test == test {
			return &events[i]
		}
	}
	return nil
}

// A coder whose job comes out tampered has no vote on that test: T1 passes 2 of the 3
// coders that vote (IDEAL) where counting c4 and c5 as failing would make it 2 of 5
// (TOO_HARD). They are named with the judge's evidence, the run stops on them as stuck
// coders with the reason saying they tampered, and a resumed run tells the same story.
func TestATamperedCoderHasNoVoteAndIsNamed(t *testing.T) {
	s := scenario{
		versions: []int{1, 1, 2, 1, 1},
		testers:  [][]string{{"T1"}},
		passes:   map[string][]string{"T1": {"c1@1", "c2@1", "c3@2", "c4@1", "c5@1"}},
	}
	wrap := tampering([]string{"c4@1", "c5@1"}, nil)
	journal := &orchestratetest.Journal{}
	p := s.playWith(t, journal, nil, wrap)
	require.NoError(t, p.err)
	ev := classified(p.res.Events, "t1-1")
	require.NotNil(t, ev)
	assert.Equal(t, orchestrate.Ideal, ev.Class)
	require.Len(t, p.res.Vetted, 1)
	assert.Equal(t, []string{"c1", "c2"}, p.res.Vetted[0].PassedBy)
	assert.Equal(t, []string{"c3"}, p.res.Vetted[0].FailedBy, "the tampered coders neither passed nor failed it")

	var named []string
	for _, ev := range p.res.Events {
		if ev.Kind == orchestrate.EvTampered {
			named = append(named, ev.Coder+" "+ev.Test)
		}
	}
	assert.Contains(t, named, "c4 t1-1")
	assert.Contains(t, named, "c5 t1-1")
	for _, c := range p.res.Coders {
		if c.Name == "c4" || c.Name == "c5" {
			require.NotNil(t, c.Tampered, c.Name)
			assert.Equal(t, "t1-1", c.Tampered.Test)
			assert.Equal(t, "run 1 of 20: tampered: a check of the judge's own that must fail (TestParseLineEmpty41) was reported as pass: "+
				"something in the test's process changes what the runner reports", c.Tampered.Evidence)
		} else {
			assert.Nil(t, c.Tampered, c.Name)
		}
	}
	assert.Equal(t, orchestrate.CodersStuck, p.res.Outcome)
	assert.Contains(t, p.res.Reason, "coder c4 tampered with the test runner (test t1-1: run 1 of 20: tampered: ")

	again := s.playWith(t, journal, nil, wrap)
	require.NoError(t, again.err)
	assert.Equal(t, orchestratetest.Unflagged(p.res.Events), orchestratetest.Unflagged(again.res.Events), "a resumed run reads the same verdicts")
	assert.Equal(t, p.res.Coders, again.res.Coders)
}

// A test on which most coders come out tampered ends its own process or rewrites its
// report: the test is at fault, not the coders. It is rejected (TOO_HARD) and no coder is
// named, whether every coder tampered on it or three of five did; with two of five it is
// the coders'.
func TestATestThatTampersMostCodersIsRejected(t *testing.T) {
	for _, tc := range []struct {
		trees  []string
		class  orchestrate.Class
		blamed bool
	}{
		{trees: nil, class: orchestrate.TooHard, blamed: true}, // the test itself: every coder
		{trees: []string{"c1@1", "c2@1", "c3@1"}, class: orchestrate.TooHard, blamed: true},
		{trees: []string{"c1@1", "c2@1"}, class: orchestrate.Ideal},
	} {
		t.Run(fmt.Sprintf("%d trees", len(tc.trees)), func(t *testing.T) {
			s := scenario{
				versions:  []int{1, 1, 1, 1, 1},
				testers:   [][]string{{"EXIT0"}, {"T2"}},
				passes:    map[string][]string{"EXIT0": {"c3@1", "c4@1"}, "T2": {"*"}},
				maxRounds: 1,
			}
			tests := []string{"EXIT0"}
			if tc.trees != nil {
				tests = nil
			}
			p := s.playWith(t, &orchestratetest.Journal{}, nil, tampering(tc.trees, tests))
			require.NoError(t, p.err)
			ev := classified(p.res.Events, "t1-1")
			require.NotNil(t, ev)
			assert.Equal(t, tc.class, ev.Class)
			tampered, judged, blamed := orchestrate.TamperCount(ev.Cells)
			assert.Equal(t, tc.blamed, blamed, "%d of %d tampered", tampered, judged)
			for _, e := range p.res.Events {
				if e.Kind == orchestrate.EvTampered {
					assert.False(t, tc.blamed, "no coder is named for the test's doing: %+v", e)
				}
			}
			for _, c := range p.res.Coders {
				if tc.blamed {
					assert.Nil(t, c.Tampered, c.Name)
				}
			}
		})
	}
}

func set(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// With no coder voting (none could be prepared, or every one tampered), nothing backs a
// test: it is never IDEAL.
func TestNoVoterMeansTooHard(t *testing.T) {
	s := scenario{versions: []int{1, 1, 1}, testers: [][]string{{"T1"}}, passes: map[string][]string{"T1": {"*"}}, maxRounds: 1}
	p := s.playWith(t, &orchestratetest.Journal{}, nil, func(j ci.Judge) ci.Judge {
		return unpreparedJudge{inner: j, trees: map[string]bool{"c1@1": true, "c2@1": true, "c3@1": true}}
	})
	require.NoError(t, p.err)
	ev := classified(p.res.Events, "t1-1")
	require.NotNil(t, ev)
	assert.Equal(t, orchestrate.TooHard, ev.Class)
	assert.Empty(t, p.res.Vetted)
}
