package ghapp

import (
	"log/slog"
	"net/http"
	"time"
)

// Logging logs one line per HTTP attempt: method, path, status, duration, GitHub's
// request id and the remaining rate limit. It never logs headers or query strings, so
// no token reaches the log.
func Logging(logger *slog.Logger) Middleware {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			start := time.Now()
			resp, err := next.RoundTrip(r)
			attrs := []any{
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Duration("duration", time.Since(start)),
			}
			if err != nil {
				logger.WarnContext(r.Context(), "github request failed", append(attrs, slog.Any("error", err))...)
				return nil, err
			}
			attrs = append(attrs,
				slog.Int("status", resp.StatusCode),
				slog.String("github_request_id", resp.Header.Get("X-GitHub-Request-Id")),
				slog.String("ratelimit_remaining", resp.Header.Get("X-RateLimit-Remaining")),
			)
			logger.DebugContext(r.Context(), "github request", attrs...)
			return resp, nil
		})
	}
}
