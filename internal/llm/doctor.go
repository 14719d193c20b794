package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Diagnosis is what Doctor found out about an endpoint and a model, for a person to read
// before a run spends money on it.
type Diagnosis struct {
	Endpoint, Model string
	// Fatal is set when the model cannot work at all (unreachable endpoint, refused key,
	// unknown model); the other fields then hold what was learnt before it.
	Fatal error

	Models  ModelsCheck
	Stream  StreamCheck
	Tools   ToolsCheck
	Context ContextCheck
}

// ModelsCheck is what GET /models said.
type ModelsCheck struct {
	Listed bool     // the server answers GET /models
	Found  bool     // and lists the model
	IDs    []string // the models it lists, to suggest one
}

// StreamCheck is a plain streamed completion.
type StreamCheck struct {
	Err              error
	CompletionTokens int           // as the server reported them, over every doctor request
	Elapsed          time.Duration // of the requests that reported tokens
}

// TokensPerSecond is the completion rate over the doctor's requests, model loading and
// prompt processing included; 0 when the server reported no token counts.
func (s StreamCheck) TokensPerSecond() float64 {
	if s.CompletionTokens == 0 || s.Elapsed <= 0 {
		return 0
	}
	return float64(s.CompletionTokens) / s.Elapsed.Seconds()
}

// ToolsCheck is a tool-call round trip: one tool offered, the call, its result sent back.
type ToolsCheck struct {
	Err       error
	Called    bool   // a call to the offered tool came back, natively or recovered
	Native    bool   // in the server's tool_calls
	Recovered string // the formats the client took calls out of the text in, e.g. "json"
	RoundTrip bool   // the model answered the tool's result
	Content   string // what the model wrote when it did not call the tool (cut short)
}

// Mode is the agents.tools setting the check supports: "native" when the server sends
// calls, "auto" when the model writes them as text, "" when it did not call at all.
func (t ToolsCheck) Mode() string {
	switch {
	case t.Native:
		return "native"
	case t.Called:
		return "auto"
	}
	return ""
}

// ContextCheck is the context window where the server reports it.
type ContextCheck struct {
	Tokens int    // 0: not reported
	Source string // where it came from, e.g. "vLLM /v1/models max_model_len"
	// Trained is set for Ollama: the model's trained length, which is not the window
	// Ollama gives it unless num_ctx or OLLAMA_CONTEXT_LENGTH say so.
	Trained bool
}

// doctorTool is the tool the check offers: the coders' own write_file, so a model that
// writes its calls as text is read exactly as it will be in a run.
var doctorTool = Tool{
	Name:        "write_file",
	Description: "Create or replace a file in the working copy.",
	Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string","description":"slash-separated path"},` +
		`"content":{"type":"string","description":"the whole new content"}},"required":["path","content"],"additionalProperties":false}`),
}

const doctorToolPrompt = "Create the file greet.go holding a Go package greet with a function Hello(name string) string " +
	"that returns \"Hello, \" + name. Use the write_file tool; do not answer in prose."

// doctorConfig is cfg for the checks: no retries, so a dead endpoint is reported at once,
// and streamed, as runs are.
func doctorConfig(cfg OpenAIConfig) OpenAIConfig {
	cfg.MaxRetries, cfg.Stream, cfg.RecoverCalls = -1, true, true
	if cfg.RequestTimeout <= 0 || cfg.RequestTimeout > 2*time.Minute {
		cfg.RequestTimeout = 2 * time.Minute // a local server may load the model first
	}
	return cfg
}

// Doctor checks that model can work behind the endpoint cfg names: GET /models, a
// streamed completion, a tool-call round trip and the context window where the server
// reports one. It spends three small completions.
func Doctor(ctx context.Context, cfg OpenAIConfig, model string) Diagnosis {
	cfg = doctorConfig(cfg)
	d := Diagnosis{Endpoint: cfg.BaseURL, Model: model}
	client, err := NewOpenAI(cfg)
	if err != nil {
		d.Fatal = err
		return d
	}
	p := probe{cfg: cfg, http: client.http}
	var cards []modelCard
	d.Models, cards, d.Fatal = p.models(ctx, model)
	if d.Fatal != nil {
		return d
	}
	d.Stream, d.Fatal = streamCheck(ctx, client, cfg.BaseURL, model)
	if d.Fatal != nil {
		return d
	}
	var tokens int
	var took time.Duration
	d.Tools, tokens, took = toolsCheck(ctx, client, model)
	d.Stream.CompletionTokens += tokens
	d.Stream.Elapsed += took
	d.Context = p.contextWindow(ctx, model, cards)
	return d
}

// Preflight is the quick form run at the start of bot run, bot eval --live and bot serve:
// one streamed completion with one tool offered. It returns an error only when the model
// cannot work at all, in words for the person who started the run.
func Preflight(ctx context.Context, cfg OpenAIConfig, model string) error {
	cfg = doctorConfig(cfg)
	client, err := NewOpenAI(cfg)
	if err != nil {
		return err
	}
	_, err = client.Chat(ctx, Request{Model: model, Tools: []Tool{doctorTool}, MaxTokens: 16,
		Messages: []Message{{Role: RoleUser, Content: "Reply with the word ready."}}})
	return fatal(err, cfg.BaseURL, model)
}

// streamCheck asks for a short streamed answer.
func streamCheck(ctx context.Context, c Client, base, model string) (StreamCheck, error) {
	start := time.Now()
	resp, err := c.Chat(ctx, Request{Model: model, MaxTokens: 32,
		Messages: []Message{{Role: RoleUser, Content: "Reply with the word ready."}}})
	if err != nil {
		return StreamCheck{Err: err}, fatal(err, base, model)
	}
	s := StreamCheck{CompletionTokens: resp.Usage.CompletionTokens}
	if s.CompletionTokens > 0 {
		s.Elapsed = time.Since(start)
	}
	return s, nil
}

// toolsCheck offers write_file, and when the model calls it, sends a result back and
// waits for the answer. It returns the completion tokens counted and the time they took.
func toolsCheck(ctx context.Context, c Client, model string) (ToolsCheck, int, time.Duration) {
	msgs := []Message{{Role: RoleUser, Content: doctorToolPrompt}}
	req := Request{Model: model, Messages: msgs, Tools: []Tool{doctorTool}, MaxTokens: 400}
	start := time.Now()
	resp, err := c.Chat(ctx, req)
	if err != nil {
		return ToolsCheck{Err: err}, 0, 0
	}
	tokens, took := resp.Usage.CompletionTokens, time.Since(start)
	var t ToolsCheck
	for _, call := range resp.Message.ToolCalls {
		t.Called = t.Called || call.Name == doctorTool.Name
	}
	if !t.Called {
		t.Content = cut(resp.Message.Content, 120)
		return t, tokens, took
	}
	t.Native = resp.RecoveredCalls() == 0
	t.Recovered = resp.Recovered
	req.Messages = append(msgs, resp.Message)
	for _, call := range resp.Message.ToolCalls {
		req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: call.ID, Content: "wrote greet.go"})
	}
	start = time.Now()
	final, err := c.Chat(ctx, req)
	if err != nil {
		t.Err = fmt.Errorf("after the tool's result: %w", err)
		return t, tokens, took
	}
	t.RoundTrip = true
	if final.Usage.CompletionTokens > 0 {
		tokens, took = tokens+final.Usage.CompletionTokens, took+time.Since(start)
	}
	return t, tokens, took
}

// ErrModelNotFound: the endpoint answered 404 to a completion: no such model (or no
// such route). Preflight's errors match it with errors.Is.
var ErrModelNotFound = errors.New("llm: the endpoint has no such model")

// errModelNotFound wraps ErrModelNotFound without adding words to the message.
var errModelNotFound = silent{ErrModelNotFound}

type silent struct{ error }

func (silent) Error() string   { return "" }
func (s silent) Unwrap() error { return s.error }

// fatal turns the errors after which no run can work into a sentence naming what to
// change; other errors are not fatal and give nil.
func fatal(err error, base, model string) error {
	if err == nil {
		return nil
	}
	var se *StatusError
	switch {
	case errors.Is(err, ErrAuth):
		return fmt.Errorf("%s refused the API key (%w): check OPENAI_API_KEY", endpointOr(base), err)
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%s has no model %q (%s): pull it, or pick one with --model / DIXIT_MODEL; "+
			"a wrong OPENAI_BASE_URL (it ends in /v1 for Ollama, vLLM and llama.cpp) answers the same%w", endpointOr(base), model, se.Message, errModelNotFound)
	case unreachable(err):
		return fmt.Errorf("cannot reach %s: %v: is the server running, and is OPENAI_BASE_URL right?", endpointOr(base), rootCause(err))
	}
	return nil
}

func endpointOr(base string) string {
	if base == "" {
		return "the endpoint"
	}
	return base
}

// unreachable reports a connection that was never made: refused, no such host, TLS.
func unreachable(err error) bool {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	return errors.As(err, &opErr) || errors.As(err, &dnsErr)
}

// rootCause is the innermost error, e.g. "connection refused" rather than the whole chain.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
