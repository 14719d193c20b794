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
			args := tc.Arguments
			if args == "" {
				args = "{}"
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args}})
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

// fromOpenAI maps a non-streamed reply back.
func fromOpenAI(resp openai.ChatCompletionResponse) (Response, error) {
	if len(resp.Choices) == 0 {
		return Response{}, errors.New("llm: reply has no choices")
	}
	ch := resp.Choices[0]
	calls := make([]ToolCall, 0, len(ch.Message.ToolCalls))
	for _, tc := range ch.Message.ToolCalls {
		calls = append(calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return finish(ch.Message.Content, ch.Message.Refusal, calls, string(ch.FinishReason), Usage{
		PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
	}), nil
}

// finish assembles a Response. A refusal (a refusal text, or finish_reason
// content_filter) is a Response with FinishReason "content_filter" and the refusal (or
// whatever content came) as Content, not an error: the model answered, just not usefully.
func finish(content, refusal string, calls []ToolCall, reason string, usage Usage) Response {
	msg := Message{Role: RoleAssistant, Content: content}
	switch {
	case refusal != "" || reason == string(openai.FinishReasonContentFilter):
		if refusal != "" {
			msg.Content = refusal
		}
		return Response{Message: msg, FinishReason: string(openai.FinishReasonContentFilter), Usage: usage}
	case reason == "" || reason == string(openai.FinishReasonNull):
		reason = string(openai.FinishReasonStop)
	case reason == string(openai.FinishReasonFunctionCall):
		reason = string(openai.FinishReasonToolCalls)
	}
	if len(calls) > 0 {
		for i := range calls {
			if calls[i].ID == "" {
				// Some servers (older Ollama) send calls without ids; the tool replies
				// must still name the call they answer.
				calls[i].ID = fmt.Sprintf("call_%d_%x", i, rand.Uint64())
			}
		}
		msg.ToolCalls = calls
		if reason == string(openai.FinishReasonStop) {
			// Some servers (older Ollama, llama.cpp) say "stop" even when they call tools.
			reason = string(openai.FinishReasonToolCalls)
		}
	}
	return Response{Message: msg, FinishReason: reason, Usage: usage}
}
