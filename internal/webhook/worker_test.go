package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/logkey"
)

func TestDuplicateDeliveryRunsOnce(t *testing.T) {
	h := &fakeHandler{events: []string{"issues"}}
	s := newServer(t, "", Config{}, h)
	start(t, s)
	body := fixture(t, "issues.labeled.json")
	assert.Equal(t, http.StatusAccepted, deliver(t, s, "issues", "dup", body).Code)
	w := deliver(t, s, "issues", "dup", body)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), "duplicate")
	require.NoError(t, s.Shutdown(t.Context()))
	assert.Len(t, h.Calls(), 1)
	assert.Equal(t, Stats{Accepted: 1, Duplicate: 1, Processed: 1}, s.Stats())
}

func TestPanickingHandlerDoesNotCrash(t *testing.T) {
	h := &fakeHandler{events: []string{"issues"}, fn: func(_ context.Context, id string) error {
		if id == "boom" {
			panic("kaboom")
		}
		return nil
	}}
	s := newServer(t, "", Config{Workers: 1}, h)
	start(t, s)
	body := fixture(t, "issues.labeled.json")
	deliver(t, s, "issues", "boom", body)
	deliver(t, s, "issues", "next", body)
	require.Eventually(t, func() bool { return s.Stats().Processed == 1 }, waitFor, tick)
	assert.Equal(t, uint64(1), s.Stats().Panics)
	assert.Equal(t, uint64(1), s.Stats().Failed)

	b, err := os.ReadFile(filepath.Join(s.cfg.QueueDir, doneDir, "boom.json"))
	require.NoError(t, err)
	var rec record
	require.NoError(t, json.Unmarshal(b, &rec))
	assert.Contains(t, rec.Error, "kaboom")
	assert.Contains(t, rec.Error, "runtime/debug.Stack", "the error carries the stack")
}

func TestCrashedDeliveryIsProcessedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	body := fixture(t, "issue_comment.created.json")
	first := &fakeHandler{events: []string{"issue_comment"}}
	crashed := newServer(t, dir, Config{}, first) // never started: it "crashes" after the 202
	assert.Equal(t, http.StatusAccepted, deliver(t, crashed, "issue_comment", "c-1", body).Code)
	require.Len(t, filesIn(t, dir), 1, "durable before the 202")

	second := &fakeHandler{events: []string{"issue_comment"}}
	s := newServer(t, dir, Config{}, second)
	start(t, s)
	require.Eventually(t, func() bool { return s.Stats().Processed == 1 }, waitFor, tick)
	assert.Equal(t, http.StatusOK, deliver(t, s, "issue_comment", "c-1", body).Code, "redelivery is a duplicate")
	require.NoError(t, s.Shutdown(t.Context()))
	assert.Empty(t, first.Calls())
	require.Len(t, second.Calls(), 1, "exactly once")
	assert.Equal(t, body, second.Calls()[0].payload)
	assert.Empty(t, filesIn(t, dir))
	assert.Len(t, filesIn(t, filepath.Join(dir, doneDir)), 1)
}

func TestDedupeSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	body := fixture(t, "issues.closed.json")
	h := &fakeHandler{events: []string{"issues"}}
	s := newServer(t, dir, Config{}, h)
	start(t, s)
	deliver(t, s, "issues", "r-1", body)
	require.NoError(t, s.Shutdown(t.Context()))
	require.Len(t, h.Calls(), 1)

	s2 := newServer(t, dir, Config{}, h)
	start(t, s2)
	assert.Equal(t, http.StatusOK, deliver(t, s2, "issues", "r-1", body).Code)
	require.NoError(t, s2.Shutdown(t.Context()))
	assert.Len(t, h.Calls(), 1)
}

func TestShutdownDrainsInFlightWork(t *testing.T) {
	release := make(chan struct{})
	running := make(chan struct{}, 1)
	h := &fakeHandler{events: []string{"issues"}, fn: func(context.Context, string) error {
		running <- struct{}{}
		<-release
		return nil
	}}
	s := newServer(t, "", Config{Workers: 1}, h)
	start(t, s)
	body := fixture(t, "issues.labeled.json")
	deliver(t, s, "issues", "slow", body)
	deliver(t, s, "issues", "queued", body)
	<-running

	done := make(chan error, 1)
	go func() { done <- s.Shutdown(t.Context()) }()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.closing
	}, waitFor, tick)
	assert.Equal(t, http.StatusServiceUnavailable, deliver(t, s, "issues", "late", body).Code)
	select {
	case <-done:
		t.Fatal("Shutdown returned while a handler was running")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-running // the queued delivery
	require.NoError(t, <-done)
	assert.Equal(t, uint64(2), s.Stats().Processed)
}

func TestShutdownGivesUpWhenContextExpires(t *testing.T) {
	h := &fakeHandler{events: []string{"issues"}, fn: func(ctx context.Context, _ string) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	dir := t.TempDir()
	s := newServer(t, dir, Config{}, h)
	require.NoError(t, s.Start(t.Context()))
	deliver(t, s, "issues", "stuck", fixture(t, "issues.labeled.json"))
	require.Eventually(t, func() bool { return len(h.Calls()) == 1 }, waitFor, tick)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.Shutdown(ctx), context.DeadlineExceeded)
	assert.Len(t, filesIn(t, dir), 1, "left pending for the next start")
}

func TestRetryableErrorsAreRetriedThenFail(t *testing.T) {
	var mu sync.Mutex
	attempts := map[string]int{}
	h := &fakeHandler{events: []string{"pull_request"}, fn: func(_ context.Context, id string) error {
		mu.Lock()
		defer mu.Unlock()
		attempts[id]++
		if id == "flaky" && attempts[id] == 2 {
			return nil
		}
		if id == "permanent" {
			return errors.New("bad input")
		}
		return Retryable(errors.New("rate limited"))
	}}
	s := newServer(t, "", Config{Retries: 2}, h)
	start(t, s)
	body := fixture(t, "pull_request.labeled.json")
	for _, id := range []string{"always", "flaky", "permanent"} {
		deliver(t, s, "pull_request", id, body)
	}
	require.Eventually(t, func() bool { st := s.Stats(); return st.Processed+st.Failed == 3 }, waitFor, tick)
	require.NoError(t, s.Shutdown(t.Context()))
	assert.Equal(t, map[string]int{"always": 3, "flaky": 2, "permanent": 1}, attempts)
	assert.Equal(t, uint64(1), s.Stats().Processed)
	assert.Equal(t, uint64(2), s.Stats().Failed)

	b, err := os.ReadFile(filepath.Join(s.cfg.QueueDir, failedDir, "always.json"))
	require.NoError(t, err)
	var rec record
	require.NoError(t, json.Unmarshal(b, &rec))
	assert.Contains(t, rec.Error, "rate limited")
	assert.Contains(t, rec.Error, "3 attempts")
	assert.FileExists(t, filepath.Join(s.cfg.QueueDir, doneDir, "permanent.json"))
	assert.FileExists(t, filepath.Join(s.cfg.QueueDir, doneDir, "flaky.json"))
}

func TestFullQueueStillAcceptsAndProcesses(t *testing.T) {
	h := &fakeHandler{events: []string{"issues"}}
	s := newServer(t, "", Config{Workers: 1, QueueSize: 1}, h)
	body := fixture(t, "issues.unlabeled.json")
	for _, id := range []string{"q1", "q2", "q3", "q4"} {
		assert.Equal(t, http.StatusAccepted, deliver(t, s, "issues", id, body).Code)
	}
	start(t, s)
	require.Eventually(t, func() bool { return s.Stats().Processed == 4 }, waitFor, tick)
	assert.Len(t, h.Calls(), 4)
}

func TestLogContextKeys(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{mu: &mu, w: &buf}, nil))
	h := &fakeHandler{events: []string{"issues"}, fn: func(ctx context.Context, _ string) error {
		Logger(ctx).Info("handling")
		return nil
	}}
	s := newServer(t, "", Config{Logger: logger}, h)
	start(t, s)
	deliver(t, s, "issues", "log-1", fixture(t, "issues.labeled.json"))
	require.NoError(t, s.Shutdown(t.Context()))

	mu.Lock()
	defer mu.Unlock()
	var line map[string]any
	for l := range bytes.Lines(buf.Bytes()) {
		var m map[string]any
		require.NoError(t, json.Unmarshal(l, &m))
		if m["msg"] == "handling" {
			line = m
		}
	}
	require.NotNil(t, line, buf.String())
	assert.Equal(t, "log-1", line[logkey.DeliveryID])
	assert.Equal(t, "issues", line[logkey.Event])
	assert.Equal(t, "Codertocat/Hello-World", line[logkey.Repository])
	assert.EqualValues(t, 1, line[logkey.Issue])
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
