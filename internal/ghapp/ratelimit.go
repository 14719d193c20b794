package ghapp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SleepFunc waits for d or until ctx is done, whichever comes first.
type SleepFunc func(ctx context.Context, d time.Duration) error

// Sleep is the real SleepFunc.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

const (
	maxRateLimitAttempts = 5
	secondaryBackoff     = 60 * time.Second // GitHub: "wait at least one minute"
)

// RateLimit retries requests GitHub refused for rate limiting, following GitHub's REST
// docs: a primary limit (429, or 403 with x-ratelimit-remaining: 0) waits until
// x-ratelimit-reset; a secondary limit honours Retry-After, else backs off
// exponentially from one minute. It never waits past the request context's deadline
// (the refusal is returned instead, for go-github to turn into *RateLimitError or
// *AbuseRateLimitError), makes at most 5 attempts, and only repeats requests it can
// replay (no body, or a body GetBody can produce again).
func RateLimit(logger *slog.Logger, sleep SleepFunc) Middleware {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if sleep == nil {
		sleep = Sleep
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			ctx := req.Context()
			secondary := 0
			for attempt := 1; ; attempt++ {
				r, err := replay(req, attempt)
				if err != nil {
					return nil, err
				}
				resp, err := next.RoundTrip(r)
				if err != nil {
					return nil, err
				}
				wait, isSecondary, limited := rateLimitWait(resp, secondary, time.Now())
				if !limited || attempt >= maxRateLimitAttempts || !replayable(req) {
					return resp, nil
				}
				if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
					logger.WarnContext(ctx, "github rate limit: wait exceeds deadline, giving up",
						"path", req.URL.Path, "status", resp.StatusCode, "wait", wait)
					return resp, nil
				}
				if isSecondary {
					secondary++
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				logger.InfoContext(ctx, "github rate limit: waiting",
					"path", req.URL.Path, "status", resp.StatusCode, "wait", wait, "attempt", attempt)
				observeWait(ctx, wait)
				if err := sleep(ctx, wait); err != nil {
					return nil, fmt.Errorf("wait %s for github rate limit on %s %s: %w", wait, req.Method, req.URL.Path, err)
				}
			}
		})
	}
}

func replayable(r *http.Request) bool {
	return r.Body == nil || r.Body == http.NoBody || r.GetBody != nil
}

// replay returns the request for an attempt, with a fresh body after the first.
func replay(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 1 || req.GetBody == nil {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("replay body of %s %s: %w", req.Method, req.URL.Path, err)
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

// rateLimitWait decides whether resp is a rate-limit refusal and how long to wait.
// secondary counts secondary-limit backoffs so far. It may buffer resp.Body.
func rateLimitWait(resp *http.Response, secondary int, now time.Time) (wait time.Duration, isSecondary, limited bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false, false
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		if secs, err := strconv.Atoi(ra); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, true, true
		}
		if t, err := http.ParseTime(ra); err == nil {
			return max(t.Sub(now), time.Second), true, true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(reset, 0).Sub(now)+time.Second, time.Second), false, true
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests || mentionsSecondary(resp) {
		return secondaryBackoff << min(secondary, 4), true, true
	}
	return 0, false, false
}

// mentionsSecondary reports whether a 403 body is a secondary rate limit (GitHub says
// so only in the message and documentation_url). The body is buffered and restored.
func mentionsSecondary(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return false
	}
	s := strings.ToLower(string(b))
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "secondary-rate-limit")
}
