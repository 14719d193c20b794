package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The reply shapes below are read leniently, because servers differ from the OpenAI
// reference in ways go-openai's strict types reject: arguments sent as a JSON object
// (llama.cpp), usage under x_groq (Groq), an error object inside a 200 reply or a
// stream chunk (OpenAI, OpenRouter, vLLM), content as an array of parts, nulls
// anywhere. Fields no server fills are simply absent here.

// wireReply is a chat completion, or one chunk of a streamed one.
type wireReply struct {
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	XGroq   *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"x_groq"`
	Error *wireError `json:"error"`
	// vLLM and some FastAPI servers send errors as a top-level object.
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// failure returns the error this reply carries, or nil.
func (r *wireReply) failure() *wireError {
	switch {
	case r.Error != nil:
		return r.Error
	case r.Object == "error":
		return &wireError{Message: r.Message, Type: r.Type, Code: codeText(r.Code)}
	}
	for _, ch := range r.Choices {
		if ch.Error != nil {
			return ch.Error
		}
	}
	return nil
}

func (r *wireReply) usage() *Usage {
	u := r.Usage
	if u == nil && r.XGroq != nil {
		u = r.XGroq.Usage
	}
	if u == nil {
		return nil
	}
	return &Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

type wireChoice struct {
	Index        int          `json:"index"`
	Message      *wireMessage `json:"message"`
	Delta        *wireMessage `json:"delta"`
	FinishReason string       `json:"finish_reason"`
	Error        *wireError   `json:"error"`
}

type wireMessage struct {
	Content          wireText       `json:"content"`
	Refusal          string         `json:"refusal"`
	ReasoningContent string         `json:"reasoning_content"` // DeepSeek, vLLM
	Reasoning        string         `json:"reasoning"`         // Ollama, Groq, OpenRouter
	ToolCalls        []wireToolCall `json:"tool_calls"`
	FunctionCall     *wireFunction  `json:"function_call"` // the deprecated single call
}

type wireToolCall struct {
	Index    *int         `json:"index"`
	ID       string       `json:"id"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string   `json:"name"`
	Arguments wireArgs `json:"arguments"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// wireArgs reads a call's arguments as the JSON text the API specifies, whether the
// server sent that text as a string or the object itself.
type wireArgs string

func (a *wireArgs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*a = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = wireArgs(s)
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*a = wireArgs(buf.String())
	}
	return nil
}

// wireText reads content sent as a string, null, or an array of parts.
type wireText string

func (t *wireText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*t = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = wireText(s)
		return nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("content is neither text nor a list of parts: %w", err)
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	*t = wireText(sb.String())
	return nil
}

// wireError is an error object: OpenAI's {message, type, param, code}, OpenRouter's
// numeric code with metadata, or a bare string as some servers send.
type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"-"`
}

func (e *wireError) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		e.Message = s
		return nil
	}
	var aux struct {
		Message  json.RawMessage `json:"message"`
		Type     *string         `json:"type"`
		Code     json.RawMessage `json:"code"`
		Metadata *struct {
			Raw string `json:"raw"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	e.Message = messageText(aux.Message)
	if aux.Type != nil {
		e.Type = *aux.Type
	}
	e.Code = codeText(aux.Code)
	if aux.Metadata != nil && aux.Metadata.Raw != "" && !strings.Contains(e.Message, aux.Metadata.Raw) {
		// OpenRouter puts the upstream provider's own words here.
		e.Message = strings.TrimSpace(e.Message + ": " + aux.Metadata.Raw)
	}
	return nil
}

// messageText reads a message that is a string or, as in FastAPI's validation errors,
// any other JSON value (kept as its text).
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// codeText reads a code sent as a string, a number or null.
func codeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
