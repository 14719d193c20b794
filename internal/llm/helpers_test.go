package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// sleeps records the waits the client asked for, without waiting; its clock moves on
// by each of them.
type sleeps struct {
	mu     sync.Mutex
	ds     []time.Duration
	start  time.Time
	passed time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ds = append(s.ds, d)
	s.passed += d
	return ctx.Err()
}

func (s *sleeps) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.start.Add(s.passed)
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.ds...)
}

func newClient(t *testing.T, srv *llmtest.Server, stream bool, edit func(*llm.OpenAIConfig)) (*llm.OpenAI, *sleeps) {
	t.Helper()
	sl := &sleeps{start: time.Now()}
	cfg := llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey())
	cfg.Stream = stream
	cfg.Sleep, cfg.Now = sl.sleep, sl.now
	if edit != nil {
		edit(&cfg)
	}
	c, err := llm.NewOpenAI(cfg)
	require.NoError(t, err)
	return c, sl
}

func hello() llm.Request {
	return llm.Request{Model: "gpt-4o-mini", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a coder."},
		{Role: llm.RoleUser, Content: "Say hello."},
	}}
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

func TestChatCancelledWhileWaiting(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.RateLimited(20 * time.Second))
	cfg := llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()) // real, context-aware sleep
	c, err := llm.NewOpenAI(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.Chat(ctx, hello())
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 2*time.Second)
	var se *llm.StatusError
	assert.False(t, errors.As(err, &se), "a cancelled wait reports the cancellation: %v", err)
}
