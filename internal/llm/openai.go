package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/dixit-bot/dixit/internal/words"
)

// API types for OpenAIConfig.APIType.
const (
	APITypeOpenAI = "openai"
	APITypeAzure  = "azure"
)

// OpenAIConfig configures an OpenAI-compatible endpoint. Start from DefaultOpenAIConfig:
// the zero value works but neither streams nor recovers calls written as text.
type OpenAIConfig struct {
	BaseURL    string // e.g. https://api.openai.com/v1, http://localhost:11434/v1; Azure: the resource URL
	APIKey     string
	APIType    string // APITypeOpenAI (default) or APITypeAzure
	APIVersion string // Azure only, e.g. 2024-10-21

	HTTPClient     *http.Client  // nil: a fresh client
	RequestTimeout time.Duration // one attempt; streamed: each wait for a chunk; default 5m
	MaxRetries     int           // retries after the first attempt; default 5, negative: none
	// Stream reads replies as server-sent events, which lets a runaway reply be cut off
	// early. DefaultOpenAIConfig turns it on.
	Stream  bool
	Runaway RunawayLimits
	// RecoverCalls turns tool calls a model wrote into its text (bare or fenced JSON,
	// <tool_call> tags, Qwen3-Coder and Llama 3 markup) into real calls, for the tools the
	// request offered, and strips leaked call markup from the text; Response.Recovered
	// says when it did. DefaultOpenAIConfig turns it on.
	RecoverCalls bool
	// Limiter spaces requests once the endpoint says it is overloaded; share one
	// between clients of the same endpoint. Nil: the client makes its own.
	Limiter *Limiter

	Logger *slog.Logger                                     // default: discard
	Sleep  func(ctx context.Context, d time.Duration) error // waits between attempts; for tests
	Now    func() time.Time                                 // the clock Sleep advances; for tests
}

// DefaultOpenAIConfig returns the recommended settings for an OpenAI-style endpoint.
func DefaultOpenAIConfig(baseURL, apiKey string) OpenAIConfig {
	return OpenAIConfig{
		BaseURL: baseURL, APIKey: apiKey, APIType: APITypeOpenAI,
		RequestTimeout: 5 * time.Minute, MaxRetries: 5, Stream: true, RecoverCalls: true,
	}
}

// Backoff between attempts when the server gives no hint: exponential with equal
// jitter, from backoffBase doubling up to backoffCap.
const (
	backoffBase = time.Second
	backoffCap  = 60 * time.Second
)

// OpenAI is a Client for OpenAI-compatible chat-completion endpoints. It speaks the
// wire protocol itself (go-openai only shapes the request), because real servers'
// replies stray from the reference in ways a strict decoder turns into fatal errors.
// It is safe for concurrent use; all agents of one endpoint should share one.
type OpenAI struct {
	http                        *http.Client
	baseURL, apiKey, apiVersion string
	azure                       bool
	stream                      bool
	recoverCalls                bool
	timeout                     time.Duration
	maxRetries                  int
	runaway                     RunawayLimits
	limiter                     *Limiter
	log                         *slog.Logger
	sleep                       func(context.Context, time.Duration) error
	now                         func() time.Time
	noUsage                     atomic.Bool // the server rejected stream_options; stream without usage
}

var _ Client = (*OpenAI)(nil)

// NewOpenAI builds a client; it does not contact the endpoint.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("llm: OpenAI config has no base URL")
	}
	c := &OpenAI{
		http: cfg.HTTPClient, baseURL: cfg.BaseURL, apiKey: cfg.APIKey, apiVersion: cfg.APIVersion,
		stream: cfg.Stream, recoverCalls: cfg.RecoverCalls, timeout: cfg.RequestTimeout,
		maxRetries: cfg.MaxRetries, runaway: cfg.Runaway, limiter: cfg.Limiter,
		log: cfg.Logger, sleep: cfg.Sleep, now: cfg.Now,
	}
	switch strings.ToLower(cfg.APIType) {
	case "", APITypeOpenAI:
	case APITypeAzure:
		if cfg.APIVersion == "" {
			return nil, errors.New("llm: Azure needs an API version")
		}
		c.azure = true
	default:
		return nil, fmt.Errorf("llm: unknown API type %q", cfg.APIType)
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = 5 * time.Minute
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = 5
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.limiter == nil {
		c.limiter = &Limiter{now: c.now}
	}
	return c, nil
}

// Chat sends req, retrying rate limits, server faults, errors reported midway through a
// reply and transport failures. The returned error is final: it wraps ErrAuth,
// ErrQuota, ErrContextLength or ErrRunaway when it is one of those, and names the last
// status or transport error otherwise. A refusal is a Response (see Refused), not an
// error: retrying it cannot help and the caller decides what it means.
func (c *OpenAI) Chat(ctx context.Context, req Request) (Response, error) {
	oreq, err := toOpenAI(req)
	if err != nil {
		return Response{}, err
	}
	var last error
	for attempt := 0; ; attempt++ {
		if err := c.limiter.wait(ctx, c.sleep); err != nil {
			return Response{}, waitFailed(req.Model, err, last)
		}
		resp, hint, err := c.attempt(ctx, oreq)
		if err == nil {
			c.limiter.succeeded()
			return c.recoverText(ctx, resp, req), nil
		}
		last = err
		if r, ok := promptFiltered(err); ok && ctx.Err() == nil {
			return r, nil
		}
		if ctx.Err() == nil && c.dropUsageOption(err) {
			continue // at once: the server told us what it did not like
		}
		wait, overload, final := c.retryPlan(ctx, req.Model, attempt, hint, err)
		if final != nil {
			return Response{}, final
		}
		c.log.WarnContext(ctx, "llm: retrying chat completion", "model", req.Model, "attempt", attempt+1,
			"wait", wait, "err", err)
		if overload {
			c.limiter.overloaded(wait) // every agent of this endpoint waits, this one at the loop's top
			continue
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return Response{}, fmt.Errorf("llm: chat with %s: %w (last error: %v)", req.Model, serr, err)
		}
	}
}

// retryPlan decides what follows a failed attempt: the wait before the next one and
// whether the endpoint said it was overloaded, or the final error.
func (c *OpenAI) retryPlan(ctx context.Context, model string, attempt int, hint time.Duration, err error) (
	wait time.Duration, overload bool, final error) {
	if ctx.Err() != nil {
		return 0, false, fmt.Errorf("llm: chat with %s: %w (last error: %v)", model, context.Cause(ctx), err)
	}
	se, isStatus := asStatusError(err)
	retry := transient(err)
	if isStatus {
		retry = retryableStatus(se)
	}
	switch {
	case !retry:
		return 0, false, fmt.Errorf("llm: chat with %s: %w", model, err)
	case attempt >= c.maxRetries:
		return 0, false, fmt.Errorf("llm: chat with %s: giving up after %s: %w", model, words.Count(attempt+1, "attempt", "attempts"), err)
	}
	wait = c.backoff(attempt, hint)
	if dl, ok := ctx.Deadline(); ok && dl.Sub(c.now()) < wait {
		return 0, false, fmt.Errorf("llm: chat with %s: not retrying, waiting %s would pass the deadline: %w",
			model, wait, err)
	}
	return wait, isStatus && overloaded(se), nil
}

func waitFailed(model string, err, last error) error {
	if last == nil {
		return fmt.Errorf("llm: chat with %s: %w", model, err)
	}
	return fmt.Errorf("llm: chat with %s: %w (last error: %v)", model, err, last)
}

// attempt sends one request and returns the server's retry hint. The timeout covers the
// whole of a non-streamed attempt, and each wait for the next chunk of a streamed one:
// a slow local model may stream for longer than any fixed limit, but not go silent.
func (c *OpenAI) attempt(ctx context.Context, req openai.ChatCompletionRequest) (Response, time.Duration, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.timeout, func() { cancel(errAttemptTimeout) })
	defer timer.Stop()
	var resp Response
	var err error
	if c.stream {
		resp, err = c.chatStream(actx, req, func() { timer.Reset(c.timeout) })
	} else {
		resp, err = c.chatOnce(actx, req)
	}
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptTimeout) {
		err = &timeoutError{after: c.timeout, err: err}
	}
	if errors.Is(err, ErrRunaway) {
		c.log.WarnContext(ctx, "llm: reply cut off", "model", req.Model, "err", err)
	}
	var hint time.Duration
	if se, ok := asStatusError(err); ok {
		rateLimited := se.StatusCode == http.StatusTooManyRequests || (se.StatusCode == 0 && overloaded(se))
		hint = retryHint(se.header, se.Message, rateLimited, c.now())
	}
	return resp, hint, err
}

var errAttemptTimeout = errors.New("llm: attempt timed out")

// chatOnce runs one non-streamed attempt. The runaway checks still apply, after the fact.
func (c *OpenAI) chatOnce(ctx context.Context, req openai.ChatCompletionRequest) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("llm: encode request: %w", err)
	}
	hr, err := c.post(ctx, req.Model, body, false)
	if err != nil {
		return Response{}, err
	}
	defer hr.Body.Close()
	return c.readWhole(hr)
}

// readWhole reads a reply sent in one piece.
func (c *OpenAI) readWhole(hr *http.Response) (Response, error) {
	r, err := readReply(hr)
	if err != nil {
		return Response{}, err
	}
	resp, err := fromWire(r)
	if err != nil {
		return Response{}, err
	}
	guard := newRunawayGuard(c.runaway)
	if err := guard.write("content", resp.Message.Content); err != nil {
		return Response{}, err
	}
	for i, tc := range resp.Message.ToolCalls {
		if err := guard.write(fmt.Sprintf("tool call %d arguments", i), tc.Arguments); err != nil {
			return Response{}, err
		}
	}
	if err := guard.finish(); err != nil {
		return Response{}, err
	}
	return resp, nil
}

// promptFiltered turns Azure's "the prompt triggered the content filter" (400,
// code content_filter) into a refusal, like a filtered reply.
func promptFiltered(err error) (Response, bool) {
	se, ok := asStatusError(err)
	if !ok || se.StatusCode != http.StatusBadRequest || se.Code != "content_filter" {
		return Response{}, false
	}
	return Response{Message: Message{Role: RoleAssistant, Content: se.Message},
		FinishReason: FinishContentFilter}, true
}

// dropUsageOption handles servers that reject stream_options: it switches it off for
// this client and reports whether the attempt should be repeated.
func (c *OpenAI) dropUsageOption(err error) bool {
	se, ok := asStatusError(err)
	if !c.stream || !ok || se.StatusCode != http.StatusBadRequest || c.noUsage.Load() ||
		!strings.Contains(se.Message, "stream_options") {
		return false
	}
	c.noUsage.Store(true)
	c.log.Warn("llm: endpoint rejects stream_options; streaming without token usage", "err", se)
	return true
}

type timeoutError struct {
	after time.Duration
	err   error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("attempt timed out after %s: %v", e.after, e.err)
}

func (e *timeoutError) Unwrap() error { return e.err }
