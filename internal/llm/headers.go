package llm

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// go-openai's *APIError carries the status code but not the response headers, and the
// retry hints (Retry-After, x-ratelimit-reset-*) live in the headers. So every attempt
// puts a responseRecord into its request context and a RoundTripper middleware fills it in.

type recordKey struct{}

// responseRecord holds what the last HTTP response of one attempt said.
type responseRecord struct {
	mu     sync.Mutex
	status int
	header http.Header
}

func (r *responseRecord) set(status int, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.header = status, h
}

func (r *responseRecord) get() (int, http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.header
}

func withResponseRecord(ctx context.Context) (context.Context, *responseRecord) {
	rec := &responseRecord{}
	return context.WithValue(ctx, recordKey{}, rec), rec
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// recordResponses is a RoundTripper middleware that copies each response's status and
// headers into the record carried by the request's context (if any), so the retry loop
// can read Retry-After after go-openai has turned the response into an error.
func recordResponses(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if rec, ok := req.Context().Value(recordKey{}).(*responseRecord); ok && resp != nil {
			rec.set(resp.StatusCode, resp.Header.Clone())
		}
		return resp, err
	})
}

// maxHintWait bounds a server's retry hint: a day-long Retry-After is a quota in disguise,
// and with no deadline on the context we would otherwise hang on it.
const maxHintWait = 10 * time.Minute

// retryHint returns how long the server asked us to wait, or 0 if it did not say.
// Order: retry-after-ms (Azure), Retry-After (seconds or HTTP date), then, for a rate
// limit only, OpenAI's x-ratelimit-reset-requests/-tokens (Go-style durations such as
// "1s", "6m0s", "20ms"), preferring the limit whose remaining count is 0, else the longer
// of the two. OpenAI sends the reset headers on every answer, so on a 5xx they say
// nothing about when the fault will pass.
func retryHint(h http.Header, rateLimited bool, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capHint(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return capHint(time.Duration(s * float64(time.Second)))
		}
		if t, err := http.ParseTime(v); err == nil && t.After(now) {
			return capHint(t.Sub(now))
		}
	}
	if !rateLimited {
		return 0
	}
	var best time.Duration
	exhausted := false
	for _, kind := range []string{"requests", "tokens"} {
		d := parseReset(h.Get("X-Ratelimit-Reset-" + kind))
		if d <= 0 {
			continue
		}
		zero := strings.TrimSpace(h.Get("X-Ratelimit-Remaining-"+kind)) == "0"
		switch {
		case zero && !exhausted:
			best, exhausted = d, true
		case zero == exhausted && d > best:
			best = d
		}
	}
	return capHint(best)
}

// parseReset reads "1s", "6m0s", "20ms" or a bare number of seconds.
func parseReset(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

func capHint(d time.Duration) time.Duration {
	return min(max(d, 0), maxHintWait)
}
