package llm

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimiter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	l := &Limiter{now: func() time.Time { return now }}
	var waited []time.Duration
	sleep := func(_ context.Context, d time.Duration) error {
		waited = append(waited, d)
		return nil
	}
	require.NoError(t, l.wait(t.Context(), sleep))
	assert.Empty(t, waited, "nothing waits before an overload")

	l.overloaded(2 * time.Second)
	for range 3 {
		require.NoError(t, l.wait(t.Context(), sleep))
	}
	assert.Equal(t, []time.Duration{2 * time.Second, 2*time.Second + minGap, 2*time.Second + 2*minGap}, waited,
		"the first back at the time the endpoint named, the others spaced after it")

	now = now.Add(time.Minute)
	l.overloaded(0)
	assert.Equal(t, 2*minGap, l.gap, "a further overload widens the gap")
	l.succeeded()
	assert.Equal(t, minGap, l.gap)
	l.succeeded()
	assert.Zero(t, l.gap, "successes close it")

	l.overloaded(time.Hour)
	ctx, cancel := context.WithDeadline(t.Context(), now.Add(time.Minute))
	defer cancel()
	err := l.wait(ctx, sleep)
	require.ErrorContains(t, err, "the endpoint is overloaded; waiting 1h0m0s for it would pass the deadline")
}
