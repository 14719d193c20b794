package ghapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

// retryClient is the App's stack (rate limits, then retries) with waits recorded, over a
// transport that gives up on an answer after a short time.
func retryClient(t *testing.T) (*ghtest.Server, *github.Client, *sleeps) {
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 1, "t", "b")
	sl := &sleeps{}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = 200 * time.Millisecond
	tr := Chain(base, RateLimit(nil, sl.sleep), Retry(nil, sl.sleep))
	return srv, srv.Client(&http.Client{Transport: tr}), sl
}

func TestRetryRepeatsWhatIsSafeToRepeat(t *testing.T) {
	cases := []struct {
		name   string
		faults []ghtest.Fault
		post   bool // create a comment instead of reading the issue
		ok     bool
		sent   int
		waits  []time.Duration
	}{
		{name: "502 then an answer", faults: []ghtest.Fault{{Status: 502, Body: `{"message":"Server Error"}`}}, ok: true, sent: 2,
			waits: []time.Duration{time.Second}},
		{name: "a dropped connection", faults: []ghtest.Fault{{Drop: true}}, ok: true, sent: 2, waits: []time.Duration{time.Second}},
		{name: "no answer in time", faults: []ghtest.Fault{{Status: 504, Delay: 5 * time.Second}}, ok: true, sent: 2,
			waits: []time.Duration{time.Second}},
		{name: "waits double, and four attempts at most", faults: []ghtest.Fault{{Status: 503, Times: 9}}, sent: 4,
			waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "a 404 is an answer", faults: []ghtest.Fault{{Status: 404, Body: `{"message":"Not Found"}`}}, sent: 1},
		{name: "a comment is not posted twice", post: true, faults: []ghtest.Fault{{Status: 502}}, sent: 1},
		{name: "a dropped comment is not posted twice", post: true, faults: []ghtest.Fault{{Drop: true}}, sent: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, gc, sl := retryClient(t)
			srv.Inject(c.faults...)
			var err error
			if c.post {
				_, _, err = gc.Issues.CreateComment(t.Context(), "o", "r", 1, &github.IssueComment{Body: github.String("hello")})
			} else {
				_, _, err = gc.Issues.Get(t.Context(), "o", "r", 1)
			}
			assert.Equal(t, c.ok, err == nil, "error: %v", err)
			assert.Len(t, srv.Requests(), c.sent)
			assert.Equal(t, c.waits, sl.d)
			if err != nil {
				assert.True(t, Transient(err) || !c.post && c.sent == 1, "%v", err)
			}
		})
	}
}

func TestRetryWaitEndsWithTheContext(t *testing.T) {
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 1, "t", "b")
	srv.Inject(ghtest.Fault{Status: 503, Times: 9})
	gc := srv.Client(&http.Client{Transport: Chain(nil, Retry(nil, Sleep))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	began := time.Now()
	_, _, err := gc.Issues.Get(ctx, "o", "r", 1)
	require.Error(t, err)
	assert.Less(t, time.Since(began), 900*time.Millisecond, "the one-second wait ended with the context")
	assert.False(t, Transient(err), "a cancelled context is final: %v", err)
}

func TestTransient(t *testing.T) {
	status := func(code int) *http.Response {
		return &http.Response{StatusCode: code, Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/x"}}}
	}
	cases := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("post: %w", &github.ErrorResponse{Response: status(502)}), true},
		{&github.ErrorResponse{Response: status(500)}, true},
		{&github.ErrorResponse{Response: status(404)}, false},
		{&github.ErrorResponse{Response: status(422)}, false},
		{&github.RateLimitError{Response: status(403)}, true},
		{&github.AbuseRateLimitError{Response: status(403)}, true},
		{&ghinstallation.HTTPError{Response: status(503)}, true},
		{&ghinstallation.HTTPError{Response: status(401)}, false},
		{&url.Error{Op: "Get", URL: "https://api.github.com", Err: io.EOF}, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{context.Canceled, false},
		{fmt.Errorf("get: %w", &url.Error{Op: "Get", Err: context.Canceled}), false},
		{errors.New("config: coders must be at least 3"), false},
		{nil, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Transient(c.err), "%v", c.err)
	}
}
