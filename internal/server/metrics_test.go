package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/serveconfig"
)

// TestMetricsAreServedApartFromTheWebhook: the port GitHub reaches serves the webhook and
// the probes, never /metrics; /metrics is on metrics_listen, which serves nothing else.
func TestMetricsAreServedApartFromTheWebhook(t *testing.T) {
	s, base, stop := runServer(t, config(t, ghtest.NewServer(t)))
	metrics := "http://" + s.MetricsAddr()
	require.True(t, strings.HasPrefix(s.MetricsAddr(), "127.0.0.1:"), s.MetricsAddr())

	code, _ := get(t, base+"/metrics")
	assert.Equal(t, http.StatusNotFound, code, "the webhook's port does not publish the counters")
	code, _ = get(t, base+"/healthz")
	assert.Equal(t, http.StatusOK, code, "the probes stay where orchestrators look for them")
	code, body := get(t, metrics+"/metrics")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "dixit_webhook_rejected_busy_total 0")
	code, _ = get(t, metrics+"/readyz")
	assert.Equal(t, http.StatusNotFound, code)
	resp, err := http.Post(metrics+"/webhook", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "no delivery is taken on the metrics port")

	require.NoError(t, stop())
	_, err = http.Get(metrics + "/metrics")
	assert.Error(t, err, "the metrics listener is closed with the server")
}

func TestMetricsCanBeTurnedOff(t *testing.T) {
	cfg := config(t, ghtest.NewServer(t))
	cfg.MetricsListen = "off"
	s, _, stop := runServer(t, cfg)
	assert.Empty(t, s.MetricsAddr())
	require.NoError(t, stop())
}

// TestServeSaysWhichKeyHoldsAMetricsAddressInUse: the server does not start half-way.
func TestServeSaysWhichKeyHoldsAMetricsAddressInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	cfg := config(t, ghtest.NewServer(t))
	cfg.MetricsListen = taken.Addr().String()
	s, err := New(cfg, nil, nil)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	err = s.Run(t.Context(), ln)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "listen for /metrics on "+taken.Addr().String()+" (metrics_listen in the config, DIXIT_METRICS_LISTEN")
}

// TestHeadersAreBoundedBeforeAnything: a client cannot make the server hold a large
// header block before its request is even looked at.
func TestHeadersAreBoundedBeforeAnything(t *testing.T) {
	_, base, stop := runServer(t, config(t, ghtest.NewServer(t)))
	defer stop()
	req, err := http.NewRequest(http.MethodPost, base+"/webhook", strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("X-Padding", strings.Repeat("a", 64<<10))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
}

// runServer runs the App's server on a loopback port until stop, once it is ready.
func runServer(t *testing.T, cfg serveconfig.Config) (s *Server, base string, stop func() error) {
	t.Helper()
	s, err := New(cfg, nil, nil)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	base = "http://" + ln.Addr().String()
	require.Eventually(t, func() bool {
		code, _ := get(t, base+"/readyz")
		return code == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "the server became ready")
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not stop")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return s, base, stop
}

// get returns the status and body of a GET, or 0 when the server could not be reached.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}
