package llmtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// invalid builds a 400 body the way the real API words it.
func invalid(msg, param, code string) *APIError {
	e := &APIError{Message: msg, Type: "invalid_request_error"}
	if param != "" {
		e.Param = ptr(param)
	}
	if code != "" {
		e.Code = ptr(code)
	}
	return e
}

// validate applies the checks of the real API that a client can get wrong, so that
// integration tests catch malformed conversations before a real endpoint does.
func validate(r *ChatRequest) *APIError {
	if r.Model == "" {
		return invalid("you must provide a model parameter", "", "")
	}
	if len(r.Messages) == 0 {
		return invalid("Invalid 'messages': empty array. Expected an array with minimum length 1, "+
			"but got an empty array instead.", "messages", "empty_array")
	}
	if r.Temperature != nil && (*r.Temperature < 0 || *r.Temperature > 2) {
		return invalid(fmt.Sprintf("Invalid 'temperature': expected a value between 0 and 2, but got %v instead.",
			*r.Temperature), "temperature", "invalid_value")
	}
	if r.StreamOptions != nil && !r.Stream {
		return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options", "")
	}
	for i, t := range r.Tools {
		p := fmt.Sprintf("tools[%d]", i)
		switch {
		case t.Type != "function":
			return invalid(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'function' and 'custom'.", t.Type),
				p+".type", "invalid_value")
		case !toolName.MatchString(t.Function.Name):
			return invalid(fmt.Sprintf("Invalid '%s.function.name': string does not match pattern. "+
				"Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", p), p+".function.name", "invalid_value")
		case len(t.Function.Parameters) > 0 && !isObject(t.Function.Parameters):
			return invalid(fmt.Sprintf("Invalid schema for function '%s': schema must be a JSON Schema of "+
				"'type: \"object\"'.", t.Function.Name), p+".function.parameters", "invalid_function_parameters")
		}
	}
	return validateMessages(r.Messages)
}

// validateMessages checks roles, required content, and that tool calls and tool
// results pair up: every call answered by a tool message right after it, no stray results.
func validateMessages(msgs []Message) *APIError {
	var pending []string // ids of the last assistant turn's calls not yet answered
	inToolBlock, callsAt := false, 0
	for i, m := range msgs {
		p := fmt.Sprintf("messages[%d]", i)
		if m.Role != "tool" && len(pending) > 0 {
			return unanswered(callsAt, pending)
		}
		switch m.Role {
		case "system", "developer", "user":
			inToolBlock = false
			if !m.HasContent {
				return invalid(fmt.Sprintf("Missing required parameter: '%s.content'.", p), p+".content",
					"missing_required_parameter")
			}
		case "assistant":
			inToolBlock, callsAt = len(m.ToolCalls) > 0, i
			if !m.HasContent && len(m.ToolCalls) == 0 {
				return invalid(fmt.Sprintf("Invalid value for '%s.content': expected a string, got null.", p),
					p+".content", "")
			}
			for j, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" {
					return invalid(fmt.Sprintf("Invalid '%s.tool_calls[%d]': id, type 'function' and function.name "+
						"are required.", p, j), fmt.Sprintf("%s.tool_calls[%d]", p, j), "invalid_value")
				}
				pending = append(pending, tc.ID)
			}
		case "tool":
			if m.ToolCallID == "" {
				return invalid(fmt.Sprintf("Missing required parameter: '%s.tool_call_id'.", p), p+".tool_call_id",
					"missing_required_parameter")
			}
			if !m.HasContent {
				return invalid(fmt.Sprintf("Missing required parameter: '%s.content'.", p), p+".content",
					"missing_required_parameter")
			}
			if !inToolBlock {
				return invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding "+
					"message with 'tool_calls'.", p+".role", "")
			}
			n := indexOf(pending, m.ToolCallID)
			if n < 0 {
				return invalid(fmt.Sprintf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of "+
					"previous message.", m.ToolCallID), p+".tool_call_id", "")
			}
			pending = append(pending[:n], pending[n+1:]...)
		default:
			return invalid(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', "+
				"'function', 'tool', and 'developer'.", m.Role), p+".role", "invalid_value")
		}
	}
	if len(pending) > 0 {
		return unanswered(callsAt, pending)
	}
	return nil
}

func unanswered(i int, ids []string) *APIError {
	return invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to each "+
		"'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(ids, ", "),
		fmt.Sprintf("messages.[%d].role", i), "")
}

func indexOf(ss []string, s string) int {
	for i, v := range ss {
		if v == s {
			return i
		}
	}
	return -1
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}
