package session

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// canaryFresh is how long a passing canary vouches for the environment: a batch that
// fails for every coder within it costs no extra build.
const canaryFresh = 10 * time.Minute

// environmentError is a batch of verdicts that no coder passed, all the same way, while an
// empty test on the base revision failed too: the judge's environment is broken, and the
// verdicts say nothing about the coders. It is a judge error, never a verdict, so neither
// the verdict cache nor the journal keeps those verdicts, and the same command resumes the
// run once the environment is fixed.
type environmentError struct{ check *runfile.Preflight }

func (e *environmentError) Error() string {
	return fmt.Sprintf("every coder failed a test the same way (%s), and so did an empty test on the base revision: %s",
		e.check.Outcome, e.check.Hint)
}

// envGuard stands between the verdict cache and the judge: when every job of a batch
// fails the same way, it runs the canary on the base to tell a broken environment from a
// test no coder could pass (TOO_HARD, a classification like any other).
type envGuard struct {
	s     *session
	inner ci.Judge

	mu     sync.Mutex
	passed time.Time // when the canary last passed
}

func (g *envGuard) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	verdicts, err := g.inner.Run(ctx, reruns, jobs)
	if err != nil || !sameFailure(verdicts) {
		return verdicts, err
	}
	if err := g.check(ctx); err != nil {
		return nil, err
	}
	return verdicts, nil
}

// check runs the canary unless it passed recently.
func (g *envGuard) check(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if time.Since(g.passed) < canaryFresh {
		return nil
	}
	_, job, ok, err := g.s.canaryJob()
	if err != nil || !ok {
		return err
	}
	verdicts, err := g.inner.Run(ctx, 1, []ci.Job{job})
	if err != nil {
		return fmt.Errorf("run an empty test on the base revision: %w", err)
	}
	if v := verdicts[0]; !v.Passed() {
		return &environmentError{&runfile.Preflight{Outcome: string(v.Outcome), Output: v.Output,
			Hint: ci.EnvironmentHint(g.s.contract, v), MidRun: true}}
	}
	g.passed = time.Now()
	return nil
}

// sameFailure: at least two jobs, none passed, all with the same outcome.
func sameFailure(verdicts []ci.Verdict) bool {
	if len(verdicts) < 2 {
		return false
	}
	for _, v := range verdicts {
		if v.Passed() || v.Outcome != verdicts[0].Outcome {
			return false
		}
	}
	return true
}
