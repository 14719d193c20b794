package llm_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// toolTurn is a conversation with a tool round trip, including an empty tool result.
func toolTurn(model string) llm.Request {
	seed := 7
	return llm.Request{
		Model: model, Seed: &seed, MaxTokens: 512, Temperature: 0,
		Tools: []llm.Tool{
			{Name: "read_file", Description: "Read a file.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "list", Description: "List the workspace."},
		},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a coder."},
			{Role: llm.RoleUser, Content: "Fix the bug."},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "read_file", Arguments: `{"path":"main.go"}`},
				{ID: "call_2", Name: "list", Arguments: `{}`},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Content: "package main"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Content: ""},
		},
	}
}

func TestChatRequestOnTheWire(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		stream    bool
		check     func(t *testing.T, r llmtest.RecordedRequest)
		wantUsage bool
	}{
		{name: "streamed with usage", model: "gpt-4o", stream: true, wantUsage: true,
			check: func(t *testing.T, r llmtest.RecordedRequest) {
				assert.True(t, r.Stream)
				require.NotNil(t, r.StreamOptions)
				assert.True(t, r.StreamOptions.IncludeUsage)
				require.NotNil(t, r.MaxTokens)
				assert.Equal(t, 512, *r.MaxTokens)
				require.NotNil(t, r.Temperature, "a zero temperature is sent, not left to the server default")
				assert.InDelta(t, 0, *r.Temperature, 1e-6)
			}},
		{name: "not streamed", model: "gpt-4o", wantUsage: true,
			check: func(t *testing.T, r llmtest.RecordedRequest) {
				assert.False(t, r.Stream)
				assert.Nil(t, r.StreamOptions)
			}},
		{name: "reasoning model", model: "o3-mini", stream: true, wantUsage: true,
			check: func(t *testing.T, r llmtest.RecordedRequest) {
				assert.Nil(t, r.MaxTokens)
				require.NotNil(t, r.MaxCompletionTokens)
				assert.Equal(t, 512, *r.MaxCompletionTokens)
				assert.Nil(t, r.Temperature)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Step{Content: "done", Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 1}})
			c, _ := newClient(t, srv, tc.stream, nil)
			got, err := c.Chat(t.Context(), toolTurn(tc.model))
			require.NoError(t, err)
			assert.Equal(t, "done", got.Message.Content)
			assert.Equal(t, tc.wantUsage, got.Usage.PromptTokens == 100)

			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, "/v1/chat/completions", r.Path)
			assert.Equal(t, "Bearer "+llmtest.DefaultAPIKey, r.Header.Get("Authorization"))
			assert.Equal(t, tc.model, r.Model)
			require.NotNil(t, r.Seed)
			assert.Equal(t, 7, *r.Seed)

			require.Len(t, r.Tools, 2)
			assert.Equal(t, "function", r.Tools[0].Type)
			assert.Equal(t, "read_file", r.Tools[0].Function.Name)
			assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
				string(r.Tools[0].Function.Parameters))
			assert.JSONEq(t, `{"type":"object","properties":{}}`, string(r.Tools[1].Function.Parameters))

			require.Len(t, r.Messages, 5)
			roles := []string{}
			for _, m := range r.Messages {
				roles = append(roles, m.Role)
			}
			assert.Equal(t, []string{"system", "user", "assistant", "tool", "tool"}, roles)
			assert.Equal(t, []llmtest.WireToolCall{
				{ID: "call_1", Type: "function", Function: llmtest.WireFunction{Name: "read_file", Arguments: `{"path":"main.go"}`}},
				{ID: "call_2", Type: "function", Function: llmtest.WireFunction{Name: "list", Arguments: `{}`}},
			}, r.Messages[2].ToolCalls)
			assert.Equal(t, "call_1", r.Messages[3].ToolCallID)
			assert.Equal(t, "package main", r.Messages[3].Content)
			assert.Equal(t, "(no output)", r.Messages[4].Content, "an empty tool result is still content")
			tc.check(t, r)
		})
	}
}

func TestChatAzure(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.WithBasePath("/"), llmtest.WithAPIKey("azure-key"))
	srv.Enqueue(llmtest.Text("hi from azure"))
	cfg := llm.DefaultOpenAIConfig(srv.URL(), "azure-key")
	cfg.APIType, cfg.APIVersion = llm.APITypeAzure, "2024-10-21"
	c, err := llm.NewOpenAI(cfg)
	require.NoError(t, err)

	got, err := c.Chat(t.Context(), hello())
	require.NoError(t, err)
	assert.Equal(t, "hi from azure", got.Message.Content)
	r := srv.Requests()[0]
	assert.Equal(t, "gpt-4o-mini", r.Deployment)
	assert.Equal(t, "2024-10-21", r.Query.Get("api-version"))
	assert.Equal(t, "azure-key", r.Header.Get("api-key"))
}

func TestChatStreamOptionsRejected(t *testing.T) {
	// Older OpenAI-compatible servers refuse stream_options; the client drops it once
	// and streams on without usage.
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Step{Status: http.StatusBadRequest, Error: &llmtest.APIError{
		Message: "Unrecognized request argument supplied: stream_options", Type: "invalid_request_error"}},
		llmtest.Text("one"), llmtest.Text("two"))
	c, sl := newClient(t, srv, true, nil)
	for _, want := range []string{"one", "two"} {
		got, err := c.Chat(t.Context(), hello())
		require.NoError(t, err)
		assert.Equal(t, want, got.Message.Content)
		assert.Zero(t, got.Usage)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.NotNil(t, reqs[0].StreamOptions)
	assert.Nil(t, reqs[1].StreamOptions)
	assert.Nil(t, reqs[2].StreamOptions)
	assert.Empty(t, sl.all(), "no backoff for a request the server told us how to fix")
}

func TestChatInvalidConversationIsFinal(t *testing.T) {
	// The fake checks tool-call pairing like the real API: a call without its result is
	// a 400, which is final.
	srv := llmtest.NewServer(t)
	c, _ := newClient(t, srv, true, nil)
	req := toolTurn("gpt-4o")
	req.Messages = req.Messages[:4] // call_2 unanswered
	_, err := c.Chat(t.Context(), req)
	require.ErrorContains(t, err, "status 400")
	require.ErrorContains(t, err, "call_2")
	var se *llm.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusBadRequest, se.StatusCode)
	assert.Len(t, srv.Requests(), 1)
}

func TestChatReplyFunc(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Reply(func(r llmtest.RecordedRequest) llmtest.Step {
		return llmtest.Text("echo: " + r.Messages[len(r.Messages)-1].Content)
	})
	c, _ := newClient(t, srv, true, func(cfg *llm.OpenAIConfig) { cfg.RequestTimeout = time.Second })
	got, err := c.Chat(t.Context(), hello())
	require.NoError(t, err)
	assert.Equal(t, "echo: Say hello.", got.Message.Content)
}

func TestChatStreamTimeoutIsPerChunk(t *testing.T) {
	tests := []struct {
		name         string
		chunkDelay   time.Duration
		wantRequests int
	}{
		// Six chunks 250 ms apart take 1.5 s, past the 1 s timeout: it is per chunk. The
		// margins are wide so that a loaded machine does not stall a steady stream.
		{name: "slow but steady stream outlives the timeout", chunkDelay: 250 * time.Millisecond, wantRequests: 1},
		{name: "stalled stream is retried", chunkDelay: 3 * time.Second, wantRequests: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Step{Content: "steady", ChunkSize: 1, ChunkDelay: tc.chunkDelay}, llmtest.Text("steady"))
			c, _ := newClient(t, srv, true, func(cfg *llm.OpenAIConfig) { cfg.RequestTimeout = time.Second })
			got, err := c.Chat(t.Context(), hello())
			require.NoError(t, err)
			assert.Equal(t, "steady", got.Message.Content)
			assert.Len(t, srv.Requests(), tc.wantRequests)
		})
	}
}
