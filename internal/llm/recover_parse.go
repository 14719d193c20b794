package llm

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// offeredTools maps each offered tool's name to the JSON types of its parameters, which
// markup that writes every value as text (Qwen3-Coder) needs to restore numbers and
// booleans.
func offeredTools(tools []Tool) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, t := range tools {
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(t.Parameters, &schema) // a tool without a readable schema takes strings
		types := map[string]string{}
		for name, p := range schema.Properties {
			if s, ok := p.Type.(string); ok {
				types[name] = s
			}
		}
		out[t.Name] = types
	}
	return out
}

// jsonCalls reads the calls in a piece of text that should hold nothing else: one or
// more JSON calls, as <tool_call> and ```json blocks do. A call whose JSON is broken
// but whose tool can be named is kept with its arguments as written, so that the tool
// answers with the error and the model can correct itself.
func jsonCalls(text string, offered map[string]map[string]string) []ToolCall {
	var calls []ToolCall
	parsed := false
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		raw, n := jsonValueAt(text, i)
		if n == 0 {
			break
		}
		parsed = true
		calls = append(calls, callsIn(raw, offered)...)
		i += n - 1
	}
	if parsed {
		return calls
	}
	m := namedTool.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	if _, ok := offered[m[1]]; !ok {
		return nil
	}
	args := strings.TrimSpace(text)
	if a := argsStart.FindStringIndex(text); a != nil {
		args = strings.TrimSpace(text[a[1]:])
	}
	return []ToolCall{{Name: m[1], Arguments: args}}
}

var (
	namedTool = regexp.MustCompile(`"(?:name|tool|function)"\s*:\s*"([A-Za-z0-9_.-]+)"`)
	argsStart = regexp.MustCompile(`"(?:arguments|parameters)"\s*:\s*`)
)

// jsonValueAt decodes the JSON value starting at text[i] and returns it with its
// length, or 0 when none starts there.
func jsonValueAt(text string, i int) (json.RawMessage, int) {
	dec := json.NewDecoder(strings.NewReader(text[i:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, 0
	}
	return raw, int(dec.InputOffset())
}

// callKeys are the keys a call object may have; an object with any other key is data,
// not a call.
var callKeys = map[string]bool{
	"name": true, "arguments": true, "parameters": true, "args": true, "input": true, "function": true,
	"tool": true, "tool_name": true, "type": true, "id": true, "index": true, "call_id": true, "tool_calls": true,
}

// callsIn reads a JSON value as calls: a call object in one of the shapes models write,
// an array of them, or {"tool_calls": [...]}. Only calls to offered tools count, and
// all of an array must be calls.
func callsIn(raw json.RawMessage, offered map[string]map[string]string) []ToolCall {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		var calls []ToolCall
		for _, it := range items {
			c := callsIn(it, offered)
			if len(c) == 0 {
				return nil
			}
			calls = append(calls, c...)
		}
		return calls
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return nil
	}
	for k := range obj {
		if !callKeys[k] {
			return nil
		}
	}
	if list, ok := obj["tool_calls"]; ok {
		return callsIn(list, offered)
	}
	name, args := callParts(obj)
	if _, ok := offered[name]; !ok {
		return nil
	}
	return []ToolCall{{Name: name, Arguments: argumentText(args)}}
}

// callParts finds the name and the arguments in the shapes seen in the wild:
// {"name", "arguments"} (Hermes, qwen2.5-coder), {"name", "parameters"} (Llama 3),
// {"function": {...}} and {"type": "function", "function": {...}} (OpenAI's own),
// {"function": "name", "arguments"}, {"tool": "name", "parameters"} (Ollama models).
func callParts(obj map[string]json.RawMessage) (string, json.RawMessage) {
	var name string
	for _, k := range []string{"name", "tool", "tool_name"} {
		if json.Unmarshal(obj[k], &name) == nil && name != "" {
			break
		}
	}
	if fn, ok := obj["function"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) == nil {
			return callParts(inner)
		}
		_ = json.Unmarshal(fn, &name)
	}
	for _, k := range []string{"arguments", "parameters", "args", "input"} {
		if a, ok := obj[k]; ok {
			return name, a
		}
	}
	return name, nil
}

// argumentText is the arguments as the JSON text a tool call carries. Arguments given
// as a string are taken as written, JSON or not.
func argumentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// xmlCalls reads Qwen3-Coder's markup:
//
//	<function=write_file>
//	<parameter=path>
//	a.go
//	</parameter>
//	</function>
//
// Values are text; a parameter the schema types as a number, boolean, object or array
// is decoded as JSON when it is one.
func xmlCalls(text string, offered map[string]map[string]string) []ToolCall {
	var calls []ToolCall
	for _, m := range functionTag.FindAllStringSubmatch(text, -1) {
		types, ok := offered[m[1]]
		if !ok {
			continue
		}
		args := map[string]any{}
		for name, value := range parameters(m[2]) {
			args[name] = typedValue(value, types[name])
		}
		b, err := json.Marshal(args)
		if err != nil {
			continue
		}
		calls = append(calls, ToolCall{Name: m[1], Arguments: string(b)})
	}
	return calls
}

var parameterOpen = regexp.MustCompile(`<parameter=([^>\s]+)>`)

// parameters splits a function body into its parameters. A value ends at its closing
// tag, or at the next parameter when the model left the tag out.
func parameters(body string) map[string]string {
	out := map[string]string{}
	opens := parameterOpen.FindAllStringSubmatchIndex(body, -1)
	for i, o := range opens {
		end := len(body)
		if i+1 < len(opens) {
			end = opens[i+1][0]
		}
		value := body[o[1]:end]
		if c := strings.Index(value, "</parameter>"); c >= 0 {
			value = value[:c]
		}
		value = strings.TrimPrefix(value, "\n")
		value = strings.TrimSuffix(value, "\n")
		out[body[o[2]:o[3]]] = value
	}
	return out
}

func typedValue(value, typ string) any {
	switch typ {
	case "", "string":
		return value
	}
	var v any
	if json.Unmarshal([]byte(strings.TrimSpace(value)), &v) == nil {
		return v
	}
	return value
}
