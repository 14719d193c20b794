package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var testSecret = []byte("It's a Secret to Everybody")

// fakeHandler records the deliveries it receives; fn, when set, decides the result.
type fakeHandler struct {
	events []string
	fn     func(ctx context.Context, id string) error

	mu    sync.Mutex
	calls []call
}

type call struct {
	event, id string
	payload   []byte
}

var _ Handler = (*fakeHandler)(nil)

func (h *fakeHandler) Handles() []string { return h.events }

func (h *fakeHandler) Handle(ctx context.Context, event, id string, payload []byte) error {
	h.mu.Lock()
	h.calls = append(h.calls, call{event, id, bytes.Clone(payload)})
	h.mu.Unlock()
	if h.fn != nil {
		return h.fn(ctx, id)
	}
	return nil
}

func (h *fakeHandler) Calls() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]call(nil), h.calls...)
}

// newServer builds a Server on dir (a fresh temp dir when empty).
func newServer(t *testing.T, dir string, cfg Config, handlers ...Handler) *Server {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	cfg.QueueDir = dir
	if cfg.Secret == nil {
		cfg.Secret = testSecret
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	s, err := New(cfg, handlers...)
	require.NoError(t, err)
	return s
}

// start starts s and shuts it down at the end of the test.
func start(t *testing.T, s *Server) {
	t.Helper()
	require.NoError(t, s.Start(t.Context()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
}

// fixture reads a recorded payload from testdata.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// signedRequest builds a delivery as GitHub sends it.
func signedRequest(event, id string, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-GitHub-Event", event)
	r.Header.Set("X-GitHub-Delivery", id)
	r.Header.Set("X-Hub-Signature-256", Sign(testSecret, body))
	return r
}

// deliver posts a signed delivery to s and returns the response.
func deliver(t *testing.T, s *Server, event, id string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, signedRequest(event, id, body))
	return w
}

// filesIn lists the delivery files directly under dir.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	return m
}

const waitFor, tick = 5 * time.Second, 5 * time.Millisecond
