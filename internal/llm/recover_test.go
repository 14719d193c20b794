package llm

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// coderTools are the tools a coder is offered, with the schemas' types that matter.
var coderTools = []Tool{
	{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "write_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
	{Name: "list_files", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}}}`)},
	{Name: "submit_test", Parameters: json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}}}`)},
	{Name: "finish"},
}

func TestRecoverCalls(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		native bool
		calls  []ToolCall
		rest   string
		format string
	}{
		{
			name:   "bare JSON, arguments as an object (Ollama qwen2.5-coder)",
			text:   `{"name": "write_file", "arguments": {"path": "x.go", "content": "package x\n"}}`,
			calls:  []ToolCall{{Name: "write_file", Arguments: `{"path":"x.go","content":"package x\n"}`}},
			format: "json",
		},
		{
			name:   "arguments as a string",
			text:   `{"name": "read_file", "arguments": "{\"path\": \"go.mod\"}"}`,
			calls:  []ToolCall{{Name: "read_file", Arguments: `{"path": "go.mod"}`}},
			format: "json",
		},
		{
			name: "fenced JSON with prose around it",
			text: "I'll submit the test now.\n\n```json\n{\"name\": \"submit_test\", \"arguments\": {\"content\": \"package x\\n\\nfunc TestX(t *testing.T) {}\\n\"}}\n```\n",
			calls: []ToolCall{{Name: "submit_test",
				Arguments: `{"content":"package x\n\nfunc TestX(t *testing.T) {}\n"}`}},
			rest: "I'll submit the test now.", format: "fenced json",
		},
		{
			name:   "Ollama shapes: function and parameters, tool and parameters",
			text:   "{\"function\": \"read_file\", \"parameters\": {\"path\": \"a\"}}\n{\"tool\": \"list_files\", \"parameters\": {}}",
			calls:  []ToolCall{{Name: "read_file", Arguments: `{"path":"a"}`}, {Name: "list_files", Arguments: `{}`}},
			format: "json",
		},
		{
			name:   "OpenAI's own shape, in an array",
			text:   `[{"type": "function", "function": {"name": "read_file", "arguments": {"path": "a"}}}, {"name": "finish"}]`,
			calls:  []ToolCall{{Name: "read_file", Arguments: `{"path":"a"}`}, {Name: "finish", Arguments: `{}`}},
			format: "json",
		},
		{
			name: "Hermes tool_call tags, two calls",
			text: "Reading both.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n" +
				"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}\n</tool_call>",
			calls: []ToolCall{{Name: "read_file", Arguments: `{"path":"a"}`}, {Name: "read_file", Arguments: `{"path":"b"}`}},
			rest:  "Reading both.", format: "tool_call tags",
		},
		{
			name: "Qwen3-Coder markup, typed by the schema",
			text: "Let me look.\n\n<tool_call>\n<function=list_files>\n<parameter=path>\nsrc\n</parameter>\n" +
				"<parameter=recursive>\ntrue\n</parameter>\n</function>\n</tool_call>",
			calls: []ToolCall{{Name: "list_files", Arguments: `{"path":"src","recursive":true}`}},
			rest:  "Let me look.", format: "qwen3-coder markup",
		},
		{
			name:   "Qwen3-Coder markup keeps a file's lines",
			text:   "<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage a\n\nfunc A() {}\n\n</parameter>\n</function>",
			calls:  []ToolCall{{Name: "write_file", Arguments: `{"content":"package a\n\nfunc A() {}\n","path":"a.go"}`}},
			format: "qwen3-coder markup",
		},
		{
			name:   "Llama 3 python_tag",
			text:   `<|python_tag|>{"name": "read_file", "parameters": {"path": "main.go"}}<|eom_id|>`,
			calls:  []ToolCall{{Name: "read_file", Arguments: `{"path":"main.go"}`}},
			format: "llama python_tag",
		},
		{
			name:  "broken JSON in tags still names the tool; the arguments go as written",
			text:  `<tool_call>{"name": "write_file", "arguments": {"path": "x.go", "content": 3</tool_call>`,
			calls: []ToolCall{{Name: "write_file", Arguments: `{"path": "x.go", "content": 3`}}, format: "tool_call tags",
		},
		{
			name:   "native calls: only the leaked markup goes (llama.cpp)",
			native: true,
			text:   "I'll list the files.\n\n<tool_call>\n<function=list_files>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>",
			rest:   "I'll list the files.", format: "leaked markup: qwen3-coder markup",
		},
		{
			name: "native calls: bare JSON in the text is left alone", native: true,
			text: `{"name": "read_file", "arguments": {"path": "a"}}`, rest: `{"name": "read_file", "arguments": {"path": "a"}}`,
		},
		{name: "a tool not offered is not a call", text: `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
			rest: `{"name": "get_weather", "arguments": {"city": "Paris"}}`},
		{name: "data that has a name is not a call", text: `{"name": "write_file", "version": "1.0.0", "arguments": {}}`,
			rest: `{"name": "write_file", "version": "1.0.0", "arguments": {}}`},
		{
			name: "a Go test in a fence is never searched",
			text: "```go\npackage x\n\nvar call = `{\"name\": \"write_file\", \"arguments\": {}}`\n```",
			rest: "```go\npackage x\n\nvar call = `{\"name\": \"write_file\", \"arguments\": {}}`\n```",
		},
		{
			name: "a call nested in other JSON is data",
			text: `{"examples": [{"name": "read_file", "arguments": {"path": "a"}}]}`,
			rest: `{"examples": [{"name": "read_file", "arguments": {"path": "a"}}]}`,
		},
		{name: "plain prose", text: "Done: all tests pass.", rest: "Done: all tests pass."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := recoverCalls(tc.text, coderTools, tc.native)
			assert.Equal(t, tc.calls, r.calls)
			assert.Equal(t, tc.rest, r.rest)
			assert.Equal(t, tc.format, r.format)
		})
	}
}

func TestWellFormed(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{}`},
		{`{"path":"a"}`, `{"path":"a"}`},
		{`{"path": "x.go", "content": 3`, `{"_unparsed":"{\"path\": \"x.go\", \"content\": 3"}`},
		{`not json`, `{"_unparsed":"not json"}`},
		{`"{\"path\":\"a\"}"`, `{"path":"a"}`},
		{`[1,2]`, `{"_unparsed":"[1,2]"}`},
	}
	for _, tc := range tests {
		got := wellFormed(tc.in)
		assert.Equal(t, tc.want, got, "from %q", tc.in)
		assert.True(t, json.Valid([]byte(got)))
	}
}
