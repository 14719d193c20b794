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
		msg    string
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
		{name: "OpenAI's message, no header", header: h(), want: 26604 * time.Millisecond,
			msg: "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, " +
				"Used 29937, Requested 385. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits"},
		{name: "minutes and seconds", want: time.Minute + 2*time.Second, msg: "Please try again in 1m2s."},
		{name: "milliseconds", want: 644 * time.Millisecond, msg: "... Requested 385. Please try again in 644ms."},
		{name: "retry in", want: 7 * time.Second, msg: "Quota exceeded. Please retry in 7s."},
		{name: "in words", want: 20 * time.Second, msg: "Too many requests, try again in 20 seconds"},
		{name: "message before the reset headers", want: 3 * time.Second, msg: "try again in 3s",
			header: h("X-Ratelimit-Reset-Tokens", "6m0s", "X-Ratelimit-Remaining-Tokens", "0")},
		{name: "Retry-After before the message", want: 2 * time.Second, msg: "try again in 3s", header: h("Retry-After", "2")},
		{name: "message on a 503", want: 5 * time.Second, msg: "overloaded, try again in 5s", status: 503},
		{name: "no number", msg: "Please try again later.", want: 0},
		{name: "message capped", msg: "try again in 3h0m0s", want: maxHintWait},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = http.StatusTooManyRequests
			}
			assert.Equal(t, tc.want, retryHint(tc.header, tc.msg, status == http.StatusTooManyRequests, now))
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
