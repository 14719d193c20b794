package ghapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
)

const (
	maxRetryAttempts = 4
	retryBackoff     = time.Second
)

// Retry repeats requests that failed on the way: a dropped connection, no answer in
// time, or a 500, 502, 503 or 504. Only requests that are safe to send twice are
// repeated: GET, HEAD, PUT, DELETE, PATCH (every PATCH Dixit sends sets whole values)
// and the POST that creates an installation token. Other POSTs (comments, pull
// requests, check runs) return the failure: GitHub may have acted on them, and the run
// looks for what it created before creating it again. Waits double from one second,
// go through sleep (so they end with the request's context), and at most 4 attempts
// are made.
func Retry(logger *slog.Logger, sleep SleepFunc) Middleware {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if sleep == nil {
		sleep = Sleep
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			ctx := req.Context()
			for attempt := 1; ; attempt++ {
				r, err := replay(req, attempt)
				if err != nil {
					return nil, err
				}
				resp, err := next.RoundTrip(r)
				if !retriable(req, resp, err) || attempt >= maxRetryAttempts || ctx.Err() != nil {
					return resp, err
				}
				wait := retryBackoff << (attempt - 1)
				what := "transport error"
				if err == nil {
					what = resp.Status
					_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
					_ = resp.Body.Close()
				}
				logger.InfoContext(ctx, "github: retrying", "method", req.Method, "path", req.URL.Path,
					"failure", what, "err", err, "wait", wait, "attempt", attempt)
				if err := sleep(ctx, wait); err != nil {
					return nil, fmt.Errorf("wait %s to retry %s %s: %w", wait, req.Method, req.URL.Path, err)
				}
			}
		})
	}
}

// retriable reports whether a request that ended with resp or err may be sent again.
func retriable(req *http.Request, resp *http.Response, err error) bool {
	if !replayable(req) || !idempotent(req) {
		return false
	}
	if err != nil {
		return req.Context().Err() == nil // dropped, refused, or no answer in time
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPatch:
		return true
	case http.MethodPost:
		// A second installation token is harmless; the first one simply expires.
		return strings.HasSuffix(req.URL.Path, "/access_tokens")
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Transient reports whether an error from a GitHub call is worth trying again later:
// GitHub or the network failed (a 5xx, a rate limit, a dropped connection, no answer in
// time), as opposed to a refusal that will not change (404, 422, bad credentials).
// A cancelled context is never transient: whoever cancelled meant it.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var rate *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &rate) || errors.As(err, &abuse) {
		return true
	}
	var resp *github.ErrorResponse
	if errors.As(err, &resp) && resp.Response != nil {
		return transientStatus(resp.Response.StatusCode)
	}
	var token *ghinstallation.HTTPError
	if errors.As(err, &token) && token.Response != nil {
		return transientStatus(token.Response.StatusCode)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return true // the request never got an answer: refused, dropped or timed out
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || isTimeout(err)
}

func transientStatus(code int) bool {
	return code >= 500 || code == http.StatusTooManyRequests
}
