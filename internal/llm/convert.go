package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// emptyToolResult stands in for an empty tool output: the API rejects a tool message
// without content, and "the command printed nothing" is a normal tool result.
const emptyToolResult = "(no output)"

// emptySchema is used for a tool declared without parameters; "null" is rejected.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// reasoningModel reports models that take max_completion_tokens and no temperature;
// go-openai refuses to send them anything else.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// toOpenAI maps our request onto go-openai's.
func toOpenAI(req Request) (openai.ChatCompletionRequest, error) {
	if req.Model == "" {
		return openai.ChatCompletionRequest{}, errors.New("llm: request has no model")
	}
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, errors.New("llm: request has no messages")
	}
	out := openai.ChatCompletionRequest{Model: req.Model, Seed: req.Seed}
	if reasoningModel(req.Model) {
		out.MaxCompletionTokens = req.MaxTokens
	} else {
		// Deprecated upstream, but it is the field Ollama, vLLM and llama.cpp's server read.
		out.MaxTokens = req.MaxTokens //lint:ignore SA1019 kept for OpenAI-compatible servers
		// go-openai omits a zero temperature, which means the server default (often 1);
		// our zero means "as deterministic as possible", so send the smallest non-zero.
		out.Temperature = req.Temperature
		if out.Temperature == 0 {
			out.Temperature = math.SmallestNonzeroFloat32
		}
	}
	for i, m := range req.Messages {
		om, err := messageToOpenAI(m)
		if err != nil {
			return openai.ChatCompletionRequest{}, fmt.Errorf("llm: message %d: %w", i, err)
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = emptySchema
		}
		if !json.Valid(params) {
			return openai.ChatCompletionRequest{}, fmt.Errorf("llm: tool %q: parameters are not valid JSON", t.Name)
		}
		out.Tools = append(out.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	return out, nil
}

func messageToOpenAI(m Message) (openai.ChatCompletionMessage, error) {
	om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	switch m.Role {
	case RoleSystem, RoleUser:
	case RoleAssistant:
		for _, tc := range m.ToolCalls {
			name := tc.Name
			if name == "" {
				name = unnamedTool
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: name, Arguments: wellFormed(tc.Arguments)}})
		}
	case RoleTool:
		if m.ToolCallID == "" {
			return om, errors.New("tool message without tool_call_id")
		}
		om.ToolCallID = m.ToolCallID
		if om.Content == "" {
			om.Content = emptyToolResult
		}
	default:
		return om, fmt.Errorf("unknown role %q", m.Role)
	}
	return om, nil
}

// fromWire maps a non-streamed reply.
func fromWire(r *wireReply) (Response, error) {
	if f := r.failure(); f != nil {
		return Response{}, streamError(f) // OpenRouter answers 200 with an error body
	}
	if len(r.Choices) == 0 || r.Choices[0].Message == nil {
		return Response{}, errEmptyReply
	}
	ch := r.Choices[0]
	if ch.FinishReason == "error" {
		return Response{}, streamError(&wireError{})
	}
	m := ch.Message
	calls := make([]ToolCall, 0, len(m.ToolCalls))
	for _, tc := range m.ToolCalls {
		calls = append(calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)})
	}
	if fc := m.FunctionCall; fc != nil {
		calls = append(calls, ToolCall{Name: fc.Name, Arguments: string(fc.Arguments)})
	}
	var usage Usage
	if u := r.usage(); u != nil {
		usage = *u
	}
	return finish(string(m.Content), m.Refusal, calls, ch.FinishReason, usage), nil
}

// finish assembles a Response. A refusal (a refusal text, or finish_reason
// content_filter) is a Response with FinishReason "content_filter" and the refusal (or
// whatever content came) as Content, not an error: the model answered, just not usefully.
func finish(content, refusal string, calls []ToolCall, reason string, usage Usage) Response {
	msg := Message{Role: RoleAssistant, Content: content}
	switch {
	case refusal != "" || reason == FinishContentFilter:
		if refusal != "" {
			msg.Content = refusal
		}
		return Response{Message: msg, FinishReason: FinishContentFilter, Usage: usage}
	case reason == "" || reason == "null":
		reason = FinishStop
	case reason == "function_call":
		reason = FinishToolCalls
	}
	if len(calls) > 0 {
		for i := range calls {
			if calls[i].ID == "" {
				// Some servers (older Ollama) send calls without ids; the tool replies
				// must still name the call they answer.
				calls[i].ID = newCallID(i)
			}
		}
		msg.ToolCalls = calls
		if reason == FinishStop {
			// Some servers (older Ollama, llama.cpp) say "stop" even when they call tools.
			reason = FinishToolCalls
		}
	}
	return Response{Message: msg, FinishReason: reason, Usage: usage}
}

func newCallID(i int) string { return fmt.Sprintf("call_%d_%x", i, rand.Uint64()) }

// unnamedTool stands in for a call's missing name on the wire, where a name is required.
const unnamedTool = "unnamed_tool"

// maxUnparsed bounds the malformed arguments quoted back in the history.
const maxUnparsed = 4 << 10

// wellFormed returns arguments the strictest server accepts in the history: a JSON
// object. A model's malformed arguments replayed as they were make DashScope (and
// Ollama) refuse every later request of the conversation with a 400; the tool's own
// answer already told the model what was wrong, so the history keeps a well-formed
// record of what it wrote: {"_unparsed": "..."}.
func wellFormed(args string) string {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return "{}"
	}
	var v any
	if json.Unmarshal([]byte(trimmed), &v) == nil {
		switch x := v.(type) {
		case map[string]any:
			return args
		case string: // arguments encoded twice
			if inner := strings.TrimSpace(x); json.Valid([]byte(inner)) && strings.HasPrefix(inner, "{") {
				return inner
			}
		}
	}
	if len(trimmed) > maxUnparsed {
		trimmed = trimmed[:maxUnparsed] + "…"
	}
	b, _ := json.Marshal(map[string]string{"_unparsed": strings.ToValidUTF8(trimmed, "\uFFFD")})
	return string(b)
}
