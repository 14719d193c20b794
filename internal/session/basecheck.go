package session

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// checkBase runs every vetted test on the base revision, so that the report can say
// which tests the change (they fail before it) and which guard behaviour the repository
// already had (they pass before it). Otter and TDD-Bench call only the first kind a test
// of the change. It decides nothing: the suite was vetted on the coders' trees.
func (s *session) checkBase(ctx context.Context, sum *runfile.Summary, res *orchestrate.Result, reruns int) error {
	if len(res.Vetted) == 0 || s.base == "" {
		return nil
	}
	tree := baseTree{s.ws, s.base}
	jobs := make([]ci.Job, len(res.Vetted))
	for i, v := range res.Vetted {
		jobs[i] = ci.Job{Coder: ci.BaseName, Tree: tree, Test: v.Test()}
	}
	s.progress("base check: %d vetted tests on the base revision", len(jobs))
	verdicts, err := s.watched(s.judge).Run(ctx, reruns, jobs)
	if err != nil {
		return fmt.Errorf("run the vetted tests on the base revision: %w", err)
	}
	for i, v := range verdicts {
		check := &runfile.BaseCheck{Outcome: v.Outcome}
		if !v.Passed() {
			check.Output = v.Output
		}
		sum.Vetted[i].OnBase = check
	}
	return nil
}
