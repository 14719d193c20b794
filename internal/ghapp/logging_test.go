package ghapp

import (
	"bytes"
	"log/slog"
	"net/http"
	"testing"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoggingHasFieldsButNoToken(t *testing.T) {
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 1, "t", "b")
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tr := Chain(nil, withToken("ghs_secret"), Logging(logger))
	_, _, err := srv.Client(&http.Client{Transport: tr}).Issues.Get(t.Context(), "o", "r", 1)
	require.NoError(t, err)
	out := buf.String()
	for _, want := range []string{`"method":"GET"`, `"path":"/api-v3/repos/o/r/issues/1"`, `"status":200`, `"github_request_id":"FAKE:`, `"ratelimit_remaining":"4999"`, `"duration"`} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "ghs_secret")
}

// withToken adds a token header, as ghinstallation does outside the stack.
func withToken(token string) Middleware {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "token "+token)
			return next.RoundTrip(r)
		})
	}
}

func TestETagCacheEvictsLeastRecentlyUsed(t *testing.T) {
	srv := ghtest.NewServer(t)
	for n := 1; n <= 3; n++ {
		srv.State.AddIssue("o", "r", n, "t", "b")
	}
	gc := srv.Client(&http.Client{Transport: Chain(nil, ETagCache(2))})
	for _, n := range []int{1, 2, 3, 1} { // 3 evicts 1, so the last GET of 1 is unconditional
		_, _, err := gc.Issues.Get(t.Context(), "o", "r", n)
		require.NoError(t, err)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	assert.Empty(t, reqs[3].Header.Get("If-None-Match"))
}
