package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAccumulator(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		want    Response
		wantErr string
	}{
		{
			name: "calls interleaved by index",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"list","arguments":"{\"dir\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"p\":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":\".\"}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "a", Name: "read", Arguments: `{"p":1}`}, {ID: "b", Name: "list", Arguments: `{"dir":"."}`},
			}}, FinishReason: "tool_calls"},
		},
		{
			name: "no index, name repeated, stop instead of tool_calls",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"read","arguments":"{\"p\""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"read","arguments":":1}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"list","arguments":"{}"}}]},"finish_reason":"stop"}]}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "a", Name: "read", Arguments: `{"p":1}`}, {ID: "b", Name: "list", Arguments: `{}`},
			}}, FinishReason: "tool_calls"},
		},
		{
			name: "every call numbered 0 (older Ollama)",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"call_b","index":0,"type":"function","function":{"name":"list","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_a", Name: "read", Arguments: `{"p":1}`}, {ID: "call_b", Name: "list", Arguments: `{}`},
			}}, FinishReason: "tool_calls"},
		},
		{
			name: "arguments as an object (llama.cpp)",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":{"path": "a.go"}}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "a", Name: "read", Arguments: `{"path":"a.go"}`},
			}}, FinishReason: "tool_calls"},
		},
		{
			name: "usage-only final chunk",
			chunks: []string{
				`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, Content: "hi"}, FinishReason: "stop",
				Usage: Usage{PromptTokens: 5, CompletionTokens: 1}},
		},
		{
			name: "usage under x_groq",
			chunks: []string{
				`{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}],"x_groq":{"id":"req_1","usage":{"prompt_tokens":7,"completion_tokens":2}}}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, Content: "hi"}, FinishReason: "stop",
				Usage: Usage{PromptTokens: 7, CompletionTokens: 2}},
		},
		{
			name: "refusal deltas",
			chunks: []string{
				`{"choices":[{"delta":{"refusal":"I can't "}}]}`,
				`{"choices":[{"delta":{"refusal":"do that."},"finish_reason":"stop"}]}`,
			},
			want: Response{Message: Message{Role: RoleAssistant, Content: "I can't do that."},
				FinishReason: "content_filter"},
		},
		{
			name:    "ended without finish reason",
			chunks:  []string{`{"choices":[{"delta":{"content":"hal"}}]}`},
			wantErr: errIncompleteStream.Error(),
		},
		{
			name: "error object after some content",
			chunks: []string{
				`{"choices":[{"delta":{"content":"Hel"}}]}`,
				`{"id":"gen-1","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
			},
			wantErr: "Provider disconnected unexpectedly",
		},
		{
			name: "finish reason error alone",
			chunks: []string{
				`{"choices":[{"delta":{"content":"Hel"}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"error"}]}`,
			},
			wantErr: `finish_reason "error"`,
		},
		{
			name:    "vLLM error object",
			chunks:  []string{`{"object":"error","message":"The model crashed","type":"InternalServerError","code":500}`},
			wantErr: "The model crashed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			acc := newAccumulator(RunawayLimits{})
			var err error
			for _, c := range tc.chunks {
				var chunk wireReply
				require.NoError(t, json.Unmarshal([]byte(c), &chunk))
				if err = acc.add(&chunk); err != nil {
					break
				}
			}
			got, rerr := acc.response()
			if err == nil {
				err = rerr
			}
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSSEReader(t *testing.T) {
	stream := ": OPENROUTER PROCESSING\r\n\r\n" +
		"data: {\"a\":1}\r\n\r\n" +
		"data:{\"b\":2}\n\n" +
		"event: message\ndata: {\"c\":\ndata: 3}\n\n" +
		"error: {\"code\":500,\"message\":\"boom\"}\n\n" +
		"data: [DONE]"
	r := newSSEReader(strings.NewReader(stream))
	var got []string
	for {
		ev, err := r.next()
		if err != nil {
			break
		}
		got = append(got, ev.name+"|"+string(ev.data))
	}
	assert.Equal(t, []string{`|{"a":1}`, `|{"b":2}`, "message|{\"c\":\n3}", `error|{"code":500,"message":"boom"}`,
		"|[DONE]"}, got)
	assert.True(t, r.atEOF)
}

func TestFinishAssignsMissingCallIDs(t *testing.T) {
	r := finish("", "", []ToolCall{{Name: "a"}, {Name: "b"}}, "tool_calls", Usage{})
	require.Len(t, r.Message.ToolCalls, 2)
	assert.NotEmpty(t, r.Message.ToolCalls[0].ID)
	assert.NotEqual(t, r.Message.ToolCalls[0].ID, r.Message.ToolCalls[1].ID)
}
