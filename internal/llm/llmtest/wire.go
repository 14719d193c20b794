package llmtest

import (
	"encoding/json"
	"fmt"
)

// ChatRequest is a chat-completions request body as the real API defines it. Optional
// scalars are pointers so tests can tell "absent" from zero.
type ChatRequest struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Tools               []Tool          `json:"tools,omitempty"`
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Seed                *int            `json:"seed,omitempty"`
	MaxTokens           *int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	N                   *int            `json:"n,omitempty"`
	Stop                json.RawMessage `json:"stop,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
}

// StreamOptions is the request's stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one request message. Content is flattened to text: a string as is, an
// array of parts as its text parts joined; HasContent tells a null or missing content.
type Message struct {
	Role       string         `json:"role"`
	Content    string         `json:"-"`
	HasContent bool           `json:"-"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// UnmarshalJSON accepts content as a string, null, or an array of content parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	aux := struct {
		*plain
		Content json.RawMessage `json:"content"`
	}{plain: (*plain)(m)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	m.Content, m.HasContent = "", false
	if len(aux.Content) == 0 || string(aux.Content) == "null" {
		return nil
	}
	if err := json.Unmarshal(aux.Content, &m.Content); err == nil {
		m.HasContent = true
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(aux.Content, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	for _, p := range parts {
		m.Content += p.Text
	}
	m.HasContent = true
	return nil
}

// WireToolCall is a tool call as it appears in an assistant message or a reply.
type WireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function WireFunction `json:"function"`
}

// WireFunction is the function part of a tool call.
type WireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a declared tool.
type Tool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef declares a function tool; Parameters is its JSON Schema.
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// APIError is the body of an error reply: {"error": {...}}. Param and Code are null
// when nil, as in the real API.
type APIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type errorBody struct {
	Error APIError `json:"error"`
}

// Usage is a reply's token count.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Reply shapes, non-streamed.
type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	SystemFingerprint string   `json:"system_fingerprint"`
	Choices           []choice `json:"choices"`
	Usage             Usage    `json:"usage"`
}

type choice struct {
	Index        int          `json:"index"`
	Message      replyMessage `json:"message"`
	Logprobs     any          `json:"logprobs"`
	FinishReason string       `json:"finish_reason"`
}

type replyMessage struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	Refusal   *string        `json:"refusal"`
	ToolCalls []WireToolCall `json:"tool_calls,omitempty"`
}

// Reply shapes, streamed.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             any           `json:"usage,omitempty"` // null on every chunk but the last when include_usage
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	Refusal   *string         `json:"refusal,omitempty"`
	ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
}

type toolCallDelta struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function functionDelta `json:"function"`
}

type functionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}
