package llm

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is the wait before retry number attempt+1: the server's hint when it gave one
// (honoured exactly, so a Retry-After of 2 waits 2s), else exponential with equal jitter
// so that many agents hitting one rate limit do not come back in lockstep.
func (c *OpenAI) backoff(attempt int, hint time.Duration) time.Duration {
	if hint > 0 {
		return hint
	}
	d := backoffCap
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffCap)
	}
	return d/2 + rand.N(d/2+1)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
