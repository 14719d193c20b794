package ghapp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sleeps records requested waits without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func setup(t *testing.T) (*ghtest.Server, *github.Client, *sleeps, *Metrics) {
	t.Helper()
	srv := ghtest.NewServer(t)
	sl := &sleeps{}
	m := NewMetrics()
	tr := Chain(nil, m.Middleware(), RateLimit(nil, sl.sleep), ETagCache(10), Logging(nil), UserAgent("dixit-test/1.0"))
	srv.State.AddIssue("o", "r", 1, "t", "b")
	return srv, srv.Client(&http.Client{Transport: tr}), sl, m
}

func TestRateLimit(t *testing.T) {
	cases := []struct {
		name   string
		faults []ghtest.Fault
		want   []time.Duration
		tol    time.Duration
	}{
		{"429 with Retry-After", []ghtest.Fault{ghtest.TooManyRequests(7 * time.Second)}, []time.Duration{7 * time.Second}, 0},
		{"primary limit waits until reset", []ghtest.Fault{ghtest.PrimaryRateLimit(time.Now().Add(90 * time.Second))}, []time.Duration{91 * time.Second}, 2 * time.Second},
		{"secondary with Retry-After", []ghtest.Fault{ghtest.SecondaryRateLimit(30 * time.Second)}, []time.Duration{30 * time.Second}, 0},
		{"secondary backs off exponentially", []ghtest.Fault{ghtest.SecondaryRateLimit(0), ghtest.SecondaryRateLimit(0)},
			[]time.Duration{60 * time.Second, 120 * time.Second}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, gc, sl, m := setup(t)
			srv.Inject(c.faults...)
			_, _, err := gc.Issues.CreateComment(t.Context(), "o", "r", 1, &github.IssueComment{Body: github.String("hi")})
			require.NoError(t, err)
			require.Len(t, sl.d, len(c.want))
			for i := range c.want {
				assert.InDelta(t, c.want[i], sl.d[i], float64(c.tol))
			}
			assert.Equal(t, []string{"hi"}, srv.State.Comments("o", "r", 1), "POST body replayed")
			st := m.Stats()
			assert.EqualValues(t, len(c.want), st.RateLimitWaits)
			assert.EqualValues(t, 1, st.Requests["2xx"])
		})
	}
}

func TestRateLimitNeverSleepsPastDeadline(t *testing.T) {
	srv, gc, sl, _ := setup(t)
	srv.Inject(ghtest.SecondaryRateLimit(10 * time.Minute))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, _, err := gc.Issues.Get(ctx, "o", "r", 1)
	var abuse *github.AbuseRateLimitError
	require.True(t, errors.As(err, &abuse), "got %v", err)
	assert.Empty(t, sl.d)
}

func TestRateLimitGivesUpAfterMaxAttempts(t *testing.T) {
	srv, gc, sl, _ := setup(t)
	srv.Inject(ghtest.Fault{Status: 429, Times: 10, Body: `{"message":"slow down"}`, Header: http.Header{"Retry-After": {"1"}}})
	_, _, err := gc.Issues.Get(t.Context(), "o", "r", 1)
	require.Error(t, err)
	assert.Len(t, sl.d, maxRateLimitAttempts-1)
}

func TestETagCacheServes304(t *testing.T) {
	srv, gc, _, m := setup(t)
	first, _, err := gc.Issues.Get(t.Context(), "o", "r", 1)
	require.NoError(t, err)
	before := srv.RateLimitRemaining()
	second, resp, err := gc.Issues.Get(t.Context(), "o", "r", 1)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, first.GetTitle(), second.GetTitle())
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Empty(t, reqs[0].Header.Get("If-None-Match"))
	assert.NotEmpty(t, reqs[1].Header.Get("If-None-Match"))
	assert.Equal(t, "dixit-test/1.0", reqs[1].Header.Get("User-Agent"))
	assert.Equal(t, before, srv.RateLimitRemaining(), "a 304 costs no rate limit")
	assert.EqualValues(t, 1, m.Stats().CacheHits)
}

func TestDroppedConnectionIsAnError(t *testing.T) {
	srv, gc, _, m := setup(t)
	srv.Inject(ghtest.Fault{Drop: true})
	_, _, err := gc.Issues.Get(t.Context(), "o", "r", 1)
	require.Error(t, err)
	assert.EqualValues(t, 1, m.Stats().TransportErrors)
}
