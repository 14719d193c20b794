// Package llm talks to chat-completion endpoints that speak the OpenAI API (OpenAI, Azure
// OpenAI, Ollama, vLLM, llama.cpp's server, …). Its types are Dixit's own, so agents,
// the journal and tests do not depend on a client library's shapes.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Roles of a message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant: tools it asks to call
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool: the call this answers
}

// ToolCall is the model's request to call a tool; Arguments is the raw JSON it wrote.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool describes a function the model may call; Parameters is a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat completion.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature float32   `json:"temperature"`
	Seed        *int      `json:"seed,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	// NativeCallsOnly takes tool calls from the server's tool_calls alone, whatever the
	// client's RecoverCalls says: for an agent configured with agents.tools: native.
	NativeCallsOnly bool `json:"native_calls_only,omitempty"`
}

// Usage counts tokens as the endpoint reported them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Finish reasons a Response carries.
const (
	FinishStop          = "stop"           // the model finished its answer
	FinishToolCalls     = "tool_calls"     // the model asks for tools to be called
	FinishLength        = "length"         // cut by max_tokens or the context window
	FinishContentFilter = "content_filter" // a refusal, by the model or the endpoint's filter
)

// Response is the model's reply.
type Response struct {
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"` // one of the Finish constants, or what the server said
	Usage        Usage   `json:"usage"`
	// Recovered is set when the client took tool calls out of the reply's text (the
	// model wrote them as JSON or markup instead of calling the tools), or stripped
	// leaked call markup from it. It names the formats, e.g. "json" or "tool_call tags".
	Recovered string `json:"recovered,omitempty"`
}

// leakedMarkup prefixes Recovered when the calls were the server's own and only markup
// left beside them was stripped.
const leakedMarkup = "leaked markup: "

// RecoveredCalls counts the calls the client took out of the reply's text; calls the
// server sent as calls, leaked markup stripped or not, are not counted.
func (r Response) RecoveredCalls() int {
	if r.Recovered == "" || strings.HasPrefix(r.Recovered, leakedMarkup) {
		return 0
	}
	return len(r.Message.ToolCalls)
}

// Truncated reports a reply cut off by the token limit: text may be unfinished and a
// call's arguments may be incomplete JSON.
func (r Response) Truncated() bool { return r.FinishReason == FinishLength }

// Refused reports a reply the model or the endpoint's content filter declined to give;
// asking again with the same conversation will not help. Message.Content says why.
func (r Response) Refused() bool { return r.FinishReason == FinishContentFilter }

// Client sends chat completions. Implementations retry what is worth retrying; an error
// they return is final for this request.
type Client interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Errors a caller must tell apart: none of them is worth retrying as is.
var (
	// ErrQuota: the account is out of credit or over a hard quota; retrying cannot help.
	ErrQuota = errors.New("llm: quota or billing limit reached")
	// ErrContextLength: the conversation no longer fits the model's context window.
	ErrContextLength = errors.New("llm: conversation exceeds the model's context window")
	// ErrAuth: the key was refused.
	ErrAuth = errors.New("llm: the endpoint refused the credentials")
	// ErrRunaway: streaming was cut off because the reply degenerated (endless whitespace
	// or repetition); the partial reply is not returned.
	ErrRunaway = errors.New("llm: reply cut off: runaway output")
)
