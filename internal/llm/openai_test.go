package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

func TestChat(t *testing.T) {
	rateReset := http.Header{}
	rateReset.Set("X-Ratelimit-Remaining-Requests", "0")
	rateReset.Set("X-Ratelimit-Reset-Requests", "1.5s")
	rateReset.Set("X-Ratelimit-Reset-Tokens", "20s")
	tests := []struct {
		name         string
		steps        []llmtest.Step
		edit         func(*llm.OpenAIConfig)
		timeout      time.Duration
		want         *llm.Response
		wantErr      error  // errors.Is
		wantErrText  string // substring
		wantRequests int
		noUsage      bool // the endpoint reports none
		checkSleeps  func(t *testing.T, ds []time.Duration)
	}{
		{
			name:  "plain reply",
			steps: []llmtest.Step{{Content: "Hello there!", Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 3}}},
			want: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Hello there!"},
				FinishReason: "stop", Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 3}},
			wantRequests: 1,
		},
		{
			name: "two parallel tool calls in small deltas",
			steps: []llmtest.Step{{ChunkSize: 3, Usage: &llmtest.Usage{PromptTokens: 40, CompletionTokens: 25},
				ToolCalls: []llmtest.ToolCall{
					{ID: "call_a", Name: "read_file", Arguments: `{"path":"internal/llm/llm.go"}`},
					{ID: "call_b", Name: "run", Arguments: `{"cmd":"go test ./...","timeout_s":60}`},
				}}},
			want: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: `{"path":"internal/llm/llm.go"}`},
				{ID: "call_b", Name: "run", Arguments: `{"cmd":"go test ./...","timeout_s":60}`},
			}}, FinishReason: "tool_calls", Usage: llm.Usage{PromptTokens: 40, CompletionTokens: 25}},
			wantRequests: 1,
		},
		{
			name:         "429 with Retry-After then success",
			steps:        []llmtest.Step{llmtest.RateLimited(2 * time.Second), llmtest.Text("ok")},
			wantRequests: 2,
			checkSleeps: func(t *testing.T, ds []time.Duration) {
				assert.Equal(t, []time.Duration{2 * time.Second}, ds)
			},
		},
		{
			name:         "429 with x-ratelimit-reset headers then success",
			steps:        []llmtest.Step{{Status: 429, Header: rateReset}, llmtest.Text("ok")},
			wantRequests: 2,
			checkSleeps: func(t *testing.T, ds []time.Duration) {
				assert.Equal(t, []time.Duration{1500 * time.Millisecond}, ds)
			},
		},
		{
			name:         "500 then success",
			steps:        []llmtest.Step{llmtest.Fault(500), llmtest.Text("ok")},
			wantRequests: 2,
			checkSleeps: func(t *testing.T, ds []time.Duration) {
				require.Len(t, ds, 1)
				assert.GreaterOrEqual(t, ds[0], 500*time.Millisecond)
				assert.LessOrEqual(t, ds[0], time.Second)
			},
		},
		{
			name:         "proxy HTML 502 then success",
			steps:        []llmtest.Step{{Status: 502, Body: "<html>Bad Gateway</html>"}, llmtest.Text("ok")},
			wantRequests: 2,
		},
		{
			name:         "dropped connection then success",
			steps:        []llmtest.Step{llmtest.Dropped(), llmtest.Text("ok")},
			wantRequests: 2,
		},
		{
			name:         "connection dropped mid-stream then success",
			steps:        []llmtest.Step{{Content: "partial answer", Drop: true, DropAfter: 3}, llmtest.Text("ok")},
			wantRequests: 2,
		},
		{
			name:         "slow attempt times out then success",
			steps:        []llmtest.Step{{Content: "late", Delay: 5 * time.Second}, llmtest.Text("ok")},
			edit:         func(c *llm.OpenAIConfig) { c.RequestTimeout = 200 * time.Millisecond },
			wantRequests: 2,
		},
		{
			name:         "insufficient quota is not retried",
			steps:        []llmtest.Step{llmtest.QuotaExceeded(), llmtest.Text("never")},
			wantErr:      llm.ErrQuota,
			wantRequests: 1,
		},
		{
			name:         "wrong key is ErrAuth",
			steps:        []llmtest.Step{llmtest.Text("never")},
			edit:         func(c *llm.OpenAIConfig) { c.APIKey = "sk-wrong-key-1234" },
			wantErr:      llm.ErrAuth,
			wantRequests: 1,
		},
		{
			name:         "context length exceeded",
			steps:        []llmtest.Step{llmtest.ContextTooLong()},
			wantErr:      llm.ErrContextLength,
			wantRequests: 1,
		},
		{
			name:         "404 is final",
			steps:        []llmtest.Step{llmtest.Fault(404)},
			wantErrText:  "status 404",
			wantRequests: 1,
		},
		{
			name:         "retries exhausted names the status",
			steps:        []llmtest.Step{llmtest.Fault(503), llmtest.Fault(503), llmtest.Fault(503)},
			edit:         func(c *llm.OpenAIConfig) { c.MaxRetries = 2 },
			wantErrText:  "giving up after 3 attempts: llm: endpoint answered status 503",
			wantRequests: 3,
			checkSleeps:  func(t *testing.T, ds []time.Duration) { assert.Len(t, ds, 2) },
		},
		{
			name:         "no retries: one attempt, in words",
			steps:        []llmtest.Step{llmtest.Fault(503)},
			edit:         func(c *llm.OpenAIConfig) { c.MaxRetries = -1 },
			wantErrText:  "giving up after 1 attempt: llm: endpoint answered status 503",
			wantRequests: 1,
		},
		{
			name:         "deadline shorter than Retry-After",
			steps:        []llmtest.Step{llmtest.RateLimited(30 * time.Second), llmtest.Text("never")},
			timeout:      2 * time.Second,
			wantErrText:  "would pass the deadline",
			wantRequests: 1,
			checkSleeps:  func(t *testing.T, ds []time.Duration) { assert.Empty(t, ds) },
		},
		{
			name:         "runaway whitespace",
			steps:        []llmtest.Step{llmtest.Text("func main() {" + strings.Repeat(" ", 100_000) + "}")},
			wantErr:      llm.ErrRunaway,
			wantRequests: 1,
		},
		{
			name:         "runaway repetition",
			steps:        []llmtest.Step{llmtest.Text("Plan:\n" + strings.Repeat("I will now fix the failing test.\n", 400))},
			wantErr:      llm.ErrRunaway,
			wantRequests: 1,
		},
		{
			name: "runaway in tool arguments",
			steps: []llmtest.Step{llmtest.Calls(llmtest.ToolCall{Name: "write_file",
				Arguments: `{"path":"a.go","content":"` + strings.Repeat(`\n`, 5000) + `"}`})},
			wantErr:      llm.ErrRunaway,
			wantRequests: 1,
		},
		{
			name:         "runaway size",
			steps:        []llmtest.Step{llmtest.Text(numberedLines(1000))},
			edit:         func(c *llm.OpenAIConfig) { c.Runaway.MaxBytes = 5000 },
			wantErr:      llm.ErrRunaway,
			wantRequests: 1,
		},
		{
			name:  "refusal",
			steps: []llmtest.Step{llmtest.Refusal("I can't help with that.")},
			want: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "I can't help with that."},
				FinishReason: "content_filter"},
			wantRequests: 1,
		},
		{
			name:  "content filter finish reason",
			steps: []llmtest.Step{{Content: "Here is", FinishReason: "content_filter"}},
			want: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Here is"},
				FinishReason: "content_filter"},
			wantRequests: 1,
		},
		{
			name: "prompt filtered (Azure 400 content_filter)",
			steps: []llmtest.Step{{Status: 400, Error: &llmtest.APIError{Message: "The response was filtered",
				Type: "invalid_request_error", Code: ptr("content_filter")}}},
			want: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "The response was filtered"},
				FinishReason: "content_filter"},
			noUsage:      true,
			wantRequests: 1,
		},
	}
	for _, mode := range []struct {
		name   string
		stream bool
	}{{"stream", true}, {"no stream", false}} {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(tc.steps...)
				c, sl := newClient(t, srv, mode.stream, tc.edit)
				ctx := t.Context()
				if tc.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				start := time.Now()
				got, err := c.Chat(ctx, hello())
				switch {
				case tc.wantErr != nil:
					require.ErrorIs(t, err, tc.wantErr)
					t.Log(err)
				case tc.wantErrText != "":
					require.ErrorContains(t, err, tc.wantErrText)
					t.Log(err)
				default:
					require.NoError(t, err)
					if tc.want != nil {
						usage := got.Usage
						if tc.want.Usage == (llm.Usage{}) {
							got.Usage = llm.Usage{} // estimated by the server; only check it is there
							assert.Equal(t, tc.noUsage, usage.CompletionTokens == 0, "usage %+v", usage)
						}
						assert.Equal(t, *tc.want, got)
					} else {
						assert.Equal(t, "ok", got.Message.Content)
					}
				}
				assert.Less(t, time.Since(start), 3*time.Second, "must not hang")
				assert.Len(t, srv.Requests(), tc.wantRequests, "requests the server saw")
				if tc.checkSleeps != nil {
					tc.checkSleeps(t, sl.all())
				}
			})
		}
	}
}
