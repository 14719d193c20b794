package llm

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetryHint(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	tests := []struct {
		name   string
		header http.Header
		status int // default 429
		want   time.Duration
	}{
		{name: "none", header: h(), want: 0},
		{name: "nil", header: nil, want: 0},
		{name: "Retry-After seconds", header: h("Retry-After", "2"), want: 2 * time.Second},
		{name: "Retry-After fractional", header: h("Retry-After", "0.5"), want: 500 * time.Millisecond},
		{name: "Retry-After HTTP date", header: h("Retry-After", now.Add(7*time.Second).Format(http.TimeFormat)),
			want: 7 * time.Second},
		{name: "Retry-After date in the past", header: h("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)),
			want: 0},
		{name: "Retry-After garbage", header: h("Retry-After", "soon"), want: 0},
		{name: "retry-after-ms wins", header: h("Retry-After-Ms", "1500", "Retry-After", "2"),
			want: 1500 * time.Millisecond},
		{name: "reset of the exhausted limit", header: h("X-Ratelimit-Reset-Requests", "6m0s",
			"X-Ratelimit-Reset-Tokens", "20ms", "X-Ratelimit-Remaining-Tokens", "0",
			"X-Ratelimit-Remaining-Requests", "12"), want: 20 * time.Millisecond},
		{name: "longer reset when none is exhausted", header: h("X-Ratelimit-Reset-Requests", "1s",
			"X-Ratelimit-Reset-Tokens", "1m30.5s"), want: 90*time.Second + 500*time.Millisecond},
		{name: "reset as bare seconds", header: h("X-Ratelimit-Reset-Tokens", "3"), want: 3 * time.Second},
		{name: "capped", header: h("Retry-After", "86400"), want: maxHintWait},
		{name: "reset headers ignored on a 500", header: h("X-Ratelimit-Reset-Requests", "6ms",
			"X-Ratelimit-Remaining-Requests", "0"), status: 500, want: 0},
		{name: "Retry-After honoured on a 503", header: h("Retry-After", "4"), status: 503, want: 4 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = http.StatusTooManyRequests
			}
			assert.Equal(t, tc.want, retryHint(tc.header, status == http.StatusTooManyRequests, now))
		})
	}
}

func TestBackoff(t *testing.T) {
	c := &OpenAI{}
	for attempt, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		for range 20 {
			d := c.backoff(attempt, 0)
			assert.GreaterOrEqual(t, d, want/2)
			assert.LessOrEqual(t, d, want)
		}
	}
	assert.LessOrEqual(t, c.backoff(40, 0), backoffCap)
	assert.GreaterOrEqual(t, c.backoff(40, 0), backoffCap/2)
	assert.Equal(t, 3*time.Second, c.backoff(0, 3*time.Second), "a hint is honoured exactly")
}
