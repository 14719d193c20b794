package llm

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func deltaChunk(d openai.ChatCompletionStreamChoiceDelta, finish openai.FinishReason) openai.ChatCompletionStreamResponse {
	return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{
		{Delta: d, FinishReason: finish}}}
}

func call(index *int, id, name, args string) openai.ChatCompletionStreamChoiceDelta {
	return openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{
		{Index: index, ID: id, Function: openai.FunctionCall{Name: name, Arguments: args}}}}
}

func TestAccumulator(t *testing.T) {
	zero, one := 0, 1
	tests := []struct {
		name    string
		chunks  []openai.ChatCompletionStreamResponse
		want    Response
		wantErr error
	}{
		{
			name: "calls interleaved by index",
			chunks: []openai.ChatCompletionStreamResponse{
				deltaChunk(call(&zero, "a", "read", ""), ""),
				deltaChunk(call(&one, "b", "list", `{"dir"`), ""),
				deltaChunk(call(&zero, "", "", `{"p":1}`), ""),
				deltaChunk(call(&one, "", "", `:"."}`), "tool_calls"),
			},
			want: Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "a", Name: "read", Arguments: `{"p":1}`}, {ID: "b", Name: "list", Arguments: `{"dir":"."}`},
			}}, FinishReason: "tool_calls"},
		},
		{
			name: "no index, name repeated, stop instead of tool_calls",
			chunks: []openai.ChatCompletionStreamResponse{
				deltaChunk(call(nil, "a", "read", `{"p"`), ""),
				deltaChunk(call(nil, "", "read", `:1}`), ""),
				deltaChunk(call(nil, "b", "list", `{}`), "stop"),
			},
			want: Response{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "a", Name: "read", Arguments: `{"p":1}`}, {ID: "b", Name: "list", Arguments: `{}`},
			}}, FinishReason: "tool_calls"},
		},
		{
			name: "usage-only final chunk",
			chunks: []openai.ChatCompletionStreamResponse{
				deltaChunk(openai.ChatCompletionStreamChoiceDelta{Content: "hi"}, "stop"),
				{Usage: &openai.Usage{PromptTokens: 5, CompletionTokens: 1}},
			},
			want: Response{Message: Message{Role: RoleAssistant, Content: "hi"}, FinishReason: "stop",
				Usage: Usage{PromptTokens: 5, CompletionTokens: 1}},
		},
		{
			name: "refusal deltas",
			chunks: []openai.ChatCompletionStreamResponse{
				deltaChunk(openai.ChatCompletionStreamChoiceDelta{Refusal: "I can't "}, ""),
				deltaChunk(openai.ChatCompletionStreamChoiceDelta{Refusal: "do that."}, "stop"),
			},
			want: Response{Message: Message{Role: RoleAssistant, Content: "I can't do that."},
				FinishReason: "content_filter"},
		},
		{
			name:    "ended without finish reason",
			chunks:  []openai.ChatCompletionStreamResponse{deltaChunk(openai.ChatCompletionStreamChoiceDelta{Content: "hal"}, "")},
			wantErr: errIncompleteStream,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			acc := newAccumulator(RunawayLimits{})
			for _, c := range tc.chunks {
				require.NoError(t, acc.add(c))
			}
			got, err := acc.response()
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFinishAssignsMissingCallIDs(t *testing.T) {
	r := finish("", "", []ToolCall{{Name: "a"}, {Name: "b"}}, "tool_calls", Usage{})
	require.Len(t, r.Message.ToolCalls, 2)
	assert.NotEmpty(t, r.Message.ToolCalls[0].ID)
	assert.NotEqual(t, r.Message.ToolCalls[0].ID, r.Message.ToolCalls[1].ID)
}
