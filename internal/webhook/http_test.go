package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty secret", Config{Secret: []byte{}, QueueDir: t.TempDir()}, "secret is empty"},
		{"nil secret", Config{QueueDir: t.TempDir()}, "secret is empty"},
		{"no queue dir", Config{Secret: testSecret}, "queue dir is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestServeHTTP(t *testing.T) {
	labeled := fixture(t, "issues.labeled.json")
	sha1Sig := func(body []byte) string {
		m := hmac.New(sha1.New, testSecret)
		m.Write(body)
		return "sha1=" + hex.EncodeToString(m.Sum(nil))
	}
	for _, tc := range []struct {
		name     string
		req      func() *http.Request
		code     int
		body     string // substring of the response
		runs     bool   // the issues handler receives the payload
		rejected uint64 // rejected_signature counter
	}{
		{name: "valid signature", code: 202, body: "accepted", runs: true,
			req: func() *http.Request { return signedRequest("issues", "d-1", labeled) }},
		{name: "bad signature", code: 401, rejected: 1, req: func() *http.Request {
			r := signedRequest("issues", "d-1", labeled)
			r.Header.Set("X-Hub-Signature-256", Sign([]byte("wrong"), labeled))
			return r
		}},
		{name: "missing signature", code: 401, rejected: 1, req: func() *http.Request {
			r := signedRequest("issues", "d-1", labeled)
			r.Header.Del("X-Hub-Signature-256")
			return r
		}},
		{name: "malformed signature", code: 401, rejected: 1, req: func() *http.Request {
			r := signedRequest("issues", "d-1", labeled)
			r.Header.Set("X-Hub-Signature-256", "sha256=zz")
			return r
		}},
		{name: "SHA-1 only", code: 401, rejected: 1, req: func() *http.Request {
			r := signedRequest("issues", "d-1", labeled)
			r.Header.Del("X-Hub-Signature-256")
			r.Header.Set("X-Hub-Signature", sha1Sig(labeled))
			return r
		}},
		{name: "oversized body", code: 413, req: func() *http.Request {
			return signedRequest("issues", "d-1", []byte(`{"x":"`+strings.Repeat("a", 2048)+`"}`))
		}},
		{name: "malformed JSON", code: 400, req: func() *http.Request {
			return signedRequest("issues", "d-1", []byte(`{"action":`))
		}},
		{name: "missing event header", code: 400, req: func() *http.Request {
			r := signedRequest("issues", "d-1", labeled)
			r.Header.Del("X-GitHub-Event")
			return r
		}},
		{name: "missing delivery header", code: 400, req: func() *http.Request {
			r := signedRequest("issues", "d-1", labeled)
			r.Header.Del("X-GitHub-Delivery")
			return r
		}},
		{name: "path in delivery id", code: 400, req: func() *http.Request {
			return signedRequest("issues", "../../etc/x", labeled)
		}},
		{name: "GET", code: 405, req: func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/webhook", nil)
		}},
		{name: "unknown event", code: 202, body: "ignored", req: func() *http.Request {
			return signedRequest("no_such_event", "d-1", []byte(`not json`))
		}},
		{name: "known event nobody handles", code: 202, body: "ignored", req: func() *http.Request {
			return signedRequest("installation", "d-1", fixture(t, "installation.created.json"))
		}},
		{name: "ping", code: 200, body: "pong", req: func() *http.Request {
			return signedRequest("ping", "d-1", fixture(t, "ping.json"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHandler{events: []string{"issues"}}
			s := newServer(t, "", Config{MaxBody: 32 << 10}, h)
			if tc.name == "oversized body" {
				s = newServer(t, "", Config{MaxBody: 1024}, h)
			}
			start(t, s)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, tc.req())
			assert.Equal(t, tc.code, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), tc.body)
			assert.Equal(t, tc.rejected, s.Stats().RejectedSignature)
			if tc.runs {
				require.Eventually(t, func() bool { return len(h.Calls()) == 1 }, waitFor, tick)
				c := h.Calls()[0]
				assert.Equal(t, "issues", c.event)
				assert.Equal(t, "d-1", c.id)
				assert.Equal(t, labeled, c.payload, "the handler receives exactly the payload")
				return
			}
			require.NoError(t, s.Shutdown(t.Context()))
			assert.Empty(t, h.Calls())
			assert.Empty(t, filesIn(t, s.cfg.QueueDir), "nothing stored")
		})
	}
}

func TestRecordedPayloadsAreAccepted(t *testing.T) {
	for _, tc := range []struct{ file, event string }{
		{"issues.labeled.json", "issues"},
		{"issues.unlabeled.json", "issues"},
		{"issues.closed.json", "issues"},
		{"issue_comment.created.json", "issue_comment"},
		{"issue_comment.created.pr.json", "issue_comment"},
		{"pull_request.labeled.json", "pull_request"},
		{"pull_request.unlabeled.json", "pull_request"},
		{"pull_request.synchronize.json", "pull_request"},
		{"pull_request.closed.json", "pull_request"},
		{"installation.created.json", "installation"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			h := &fakeHandler{events: []string{tc.event}}
			s := newServer(t, "", Config{}, h)
			start(t, s)
			body := fixture(t, tc.file)
			assert.Equal(t, http.StatusAccepted, deliver(t, s, tc.event, "id-1", body).Code)
			require.Eventually(t, func() bool { return len(h.Calls()) == 1 }, waitFor, tick)
			assert.Equal(t, body, h.Calls()[0].payload)
		})
	}
}

// TestARedeliveryIsNotAcknowledgedBeforeTheFirstCopyIsStored: while one request stores a
// delivery, another with the same id waits; if the first fails, the second is not told
// "duplicate" (GitHub would then never send it again), and a later redelivery stores it.
func TestARedeliveryIsNotAcknowledgedBeforeTheFirstCopyIsStored(t *testing.T) {
	s := newServer(t, "", Config{}, &fakeHandler{events: []string{"issues"}})
	claimed, stored, _ := s.beginStoring("d-1")
	require.True(t, claimed)
	require.False(t, stored)

	body := fixture(t, "issues.labeled.json")
	answered := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, signedRequest("issues", "d-1", body))
		answered <- rec.Code
	}()
	select {
	case code := <-answered:
		t.Fatalf("a redelivery was answered %d while the first copy was being stored", code)
	case <-time.After(100 * time.Millisecond):
	}
	s.endStoring("d-1", false) // the first copy could not be stored
	assert.Equal(t, http.StatusAccepted, <-answered, "the waiting redelivery stores it itself")

	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, signedRequest("issues", "d-1", body))
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "duplicate\n", rec.Body.String())

	// A redelivery that gives up waiting gets a 503, not an acknowledgement.
	s.beginStoring("d-2")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, signedRequest("issues", "d-2", body).WithContext(ctx))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	s.endStoring("d-2", true)
}
