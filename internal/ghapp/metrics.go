package ghapp

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Stats is a snapshot of Metrics.
type Stats struct {
	Requests        map[string]int64 // by status class: "2xx", "3xx", "4xx", "5xx"
	TransportErrors int64
	RateLimitWaits  int64
	RateLimitWaited time.Duration
	CacheHits       int64 // 304s served from the ETag cache
}

// Metrics counts requests by status class and rate-limit waits.
type Metrics struct {
	mu sync.Mutex
	s  Stats
}

// NewMetrics returns empty counters.
func NewMetrics() *Metrics { return &Metrics{s: Stats{Requests: map[string]int64{}}} }

// Stats returns a copy of the counters.
func (m *Metrics) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.s
	out.Requests = make(map[string]int64, len(m.s.Requests))
	for k, v := range m.s.Requests {
		out.Requests[k] = v
	}
	return out
}

type metricsKey struct{}

// Middleware counts what the inner stack returns. Put it outside RateLimit and
// ETagCache: they report waits and cache hits through the request context.
func (m *Metrics) Middleware() Middleware {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.WithContext(context.WithValue(r.Context(), metricsKey{}, m))
			resp, err := next.RoundTrip(r)
			m.mu.Lock()
			defer m.mu.Unlock()
			if err != nil {
				m.s.TransportErrors++
				return nil, err
			}
			m.s.Requests[fmt.Sprintf("%dxx", resp.StatusCode/100)]++
			return resp, nil
		})
	}
}

func observeWait(ctx context.Context, d time.Duration) {
	if m, ok := ctx.Value(metricsKey{}).(*Metrics); ok {
		m.mu.Lock()
		m.s.RateLimitWaits++
		m.s.RateLimitWaited += d
		m.mu.Unlock()
	}
}

func observeCacheHit(ctx context.Context) {
	if m, ok := ctx.Value(metricsKey{}).(*Metrics); ok {
		m.mu.Lock()
		m.s.CacheHits++
		m.mu.Unlock()
	}
}
