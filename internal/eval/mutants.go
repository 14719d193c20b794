package eval

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/mutation"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Mutation is how many mutants of the final implementation three suites kill: the run's
// tests (those precision measures), every test proposed in the run, and the hidden tests.
// A test kills only if it passes on the final implementation itself (mutation.Score).
type Mutation struct {
	Generated int            `json:"generated"` // mutants that type-check
	Mutants   int            `json:"mutants"`   // judged: at most Options.Mutants of them
	Tests     mutation.Score `json:"tests"`
	Proposed  mutation.Score `json:"proposed"`
	Hidden    mutation.Score `json:"hidden"`
}

// mutants measures the final implementation's mutants. proposed are all the tests the
// run produced; for protocols without testers they are the run's own tests.
func mutants(ctx context.Context, m measurement, files []gitstate.File, tests, proposed []orchestrate.Candidate) (*Mutation, error) {
	rep, err := mutation.Run(ctx, mutation.Options{Judge: m.judge, Reruns: m.settings.Reruns, Max: m.mutants, Private: m.settings.Test.Private},
		files, []mutation.Suite{
			{Name: "run's", Tests: ciTests(tests)},
			{Name: "proposed", Tests: ciTests(proposed)},
			{Name: "hidden", Tests: ciTests(m.hidden)},
		})
	if err != nil {
		return nil, fmt.Errorf("mutants of the final implementation: %w", err)
	}
	return &Mutation{Generated: rep.Generated, Mutants: rep.Mutants, Tests: rep.Suites[0], Proposed: rep.Suites[1], Hidden: rep.Suites[2]}, nil
}

func ciTests(cands []orchestrate.Candidate) []ci.Test {
	out := make([]ci.Test, len(cands))
	for i, c := range cands {
		out[i] = ci.Test{ID: c.ID, Content: c.Content}
	}
	return out
}

// killed turns a suite's result into a Score: mutants killed out of those judged. A run
// with no test of that kind counts nothing (n/a), rather than killing none.
func killed(s mutation.Score) Score {
	if s.Tests == 0 {
		return Score{}
	}
	return Score{Passed: s.Killed, Total: s.Mutants}
}
