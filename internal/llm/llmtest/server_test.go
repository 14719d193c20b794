package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func post(t *testing.T, url, key, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

const userHi = `{"model":"m","messages":[{"role":"user","content":"hi"}]`

func TestStreamWireFormat(t *testing.T) {
	s := NewServer(t)
	s.Enqueue(Step{Content: "héllo wörld", ChunkSize: 3, ToolCalls: []ToolCall{{ID: "call_x", Name: "run",
		Arguments: `{"cmd":"ls"}`}}, Usage: &Usage{PromptTokens: 9, CompletionTokens: 4}})
	resp, body := post(t, s.URL()+"/chat/completions", DefaultAPIKey,
		userHi+`,"stream":true,"stream_options":{"include_usage":true}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"))

	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	done := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		require.True(t, ok, "every line is an SSE data line: %q", line)
		if data == "[DONE]" {
			done = true
			continue
		}
		require.False(t, done, "nothing after [DONE]")
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		events = append(events, ev)
	}
	require.True(t, done)
	content, args := "", ""
	for i, ev := range events {
		assert.Equal(t, "chat.completion.chunk", ev["object"])
		assert.Equal(t, "m", ev["model"])
		assert.Contains(t, ev, "usage")
		choices := ev["choices"].([]any)
		if i == len(events)-1 {
			assert.Empty(t, choices, "the usage chunk has no choices")
			assert.Equal(t, map[string]any{"prompt_tokens": 9.0, "completion_tokens": 4.0, "total_tokens": 13.0},
				ev["usage"])
			continue
		}
		assert.Nil(t, ev["usage"])
		d := choices[0].(map[string]any)["delta"].(map[string]any)
		if i == 0 {
			assert.Equal(t, "assistant", d["role"])
		}
		if c, ok := d["content"].(string); ok {
			content += c
		}
		for _, tc := range asSlice(d["tool_calls"]) {
			tcm := tc.(map[string]any)
			assert.Equal(t, 0.0, tcm["index"])
			args += tcm["function"].(map[string]any)["arguments"].(string)
		}
	}
	assert.Equal(t, "héllo wörld", content)
	assert.Equal(t, `{"cmd":"ls"}`, args)
	last := events[len(events)-2]["choices"].([]any)[0].(map[string]any)
	assert.Equal(t, "tool_calls", last["finish_reason"])
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestJSONWireFormat(t *testing.T) {
	s := NewServer(t)
	s.Enqueue(Calls(ToolCall{Name: "run", Arguments: `{}`}))
	resp, body := post(t, s.URL()+"/chat/completions", DefaultAPIKey, userHi+`}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, "chat.completion", got["object"])
	ch := got["choices"].([]any)[0].(map[string]any)
	assert.Equal(t, "tool_calls", ch["finish_reason"])
	msg := ch["message"].(map[string]any)
	assert.Nil(t, msg["content"], "a tool-call-only reply has null content")
	assert.Contains(t, msg, "refusal")
	call := msg["tool_calls"].([]any)[0].(map[string]any)
	assert.Equal(t, "function", call["type"])
	assert.Equal(t, "call_llmtest_0_0", call["id"])
	assert.Contains(t, got["usage"], "total_tokens")
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, path, key, body string
		step                  *Step
		wantStatus            int
		wantMessage, wantCode string
	}{
		{name: "no key", path: "/chat/completions", body: userHi + `}`, wantStatus: 401,
			wantMessage: "You didn't provide an API key"},
		{name: "wrong key", path: "/chat/completions", key: "sk-wrong-123456", body: userHi + `}`, wantStatus: 401,
			wantMessage: "Incorrect API key provided: sk-********3456", wantCode: "invalid_api_key"},
		{name: "unknown path", path: "/completions", key: DefaultAPIKey, body: userHi + `}`, wantStatus: 404,
			wantMessage: "Invalid URL (POST /v1/completions)"},
		{name: "bad JSON", path: "/chat/completions", key: DefaultAPIKey, body: `{"model":`, wantStatus: 400,
			wantMessage: "could not parse the JSON body"},
		{name: "no messages", path: "/chat/completions", key: DefaultAPIKey, body: `{"model":"m","messages":[]}`,
			wantStatus: 400, wantCode: "empty_array"},
		{name: "no model", path: "/chat/completions", key: DefaultAPIKey, body: `{"messages":[{"role":"user","content":"x"}]}`,
			wantStatus: 400, wantMessage: "you must provide a model parameter"},
		{name: "stream_options without stream", path: "/chat/completions", key: DefaultAPIKey,
			body: userHi + `,"stream_options":{"include_usage":true}}`, wantStatus: 400, wantMessage: "'stream_options'"},
		{name: "temperature too high", path: "/chat/completions", key: DefaultAPIKey, body: userHi + `,"temperature":3}`,
			wantStatus: 400, wantCode: "invalid_value"},
		{name: "bad tool name", path: "/chat/completions", key: DefaultAPIKey,
			body: userHi + `,"tools":[{"type":"function","function":{"name":"run tests"}}]}`, wantStatus: 400,
			wantMessage: "does not match pattern"},
		{name: "stray tool result", path: "/chat/completions", key: DefaultAPIKey,
			body:       `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
			wantStatus: 400, wantMessage: "must be a response to a preceeding message with 'tool_calls'"},
		{name: "unanswered call", path: "/chat/completions", key: DefaultAPIKey,
			body: `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[` +
				`{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"y"}]}`,
			wantStatus: 400, wantMessage: "did not have response messages: c1"},
		{name: "tool result without content", path: "/chat/completions", key: DefaultAPIKey,
			body: `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[` +
				`{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1"}]}`,
			wantStatus: 400, wantCode: "missing_required_parameter"},
		{name: "scripted rate limit", path: "/chat/completions", key: DefaultAPIKey, body: userHi + `}`,
			step: &Step{Status: 429}, wantStatus: 429, wantCode: "rate_limit_exceeded"},
		{name: "scripted quota", path: "/chat/completions", key: DefaultAPIKey, body: userHi + `}`,
			step: ptr(QuotaExceeded()), wantStatus: 429, wantCode: "insufficient_quota"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(t)
			if tc.step != nil {
				s.Enqueue(*tc.step)
			}
			resp, body := post(t, s.URL()+tc.path, tc.key, tc.body)
			assert.Equal(t, tc.wantStatus, resp.StatusCode)
			var eb struct {
				Error map[string]any `json:"error"`
			}
			require.NoError(t, json.Unmarshal(body, &eb), "%s", body)
			for _, k := range []string{"message", "type", "param", "code"} {
				assert.Contains(t, eb.Error, k, "error bodies carry all four fields")
			}
			assert.Contains(t, eb.Error["message"], tc.wantMessage)
			if tc.wantCode != "" {
				assert.Equal(t, tc.wantCode, eb.Error["code"])
			}
			assert.Len(t, s.Requests(), 1, "refused requests are recorded too")
		})
	}
}

func TestRateLimitedHeader(t *testing.T) {
	s := NewServer(t)
	s.Enqueue(RateLimited(1500 * time.Millisecond))
	resp, _ := post(t, s.URL()+"/chat/completions", DefaultAPIKey, userHi+`}`)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"), "rounded up to whole seconds")
}

// fakeTB catches Errorf so a test can check the server complains.
type fakeTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func TestUnscriptedRequestFailsTheTest(t *testing.T) {
	tb := &fakeTB{TB: t}
	s := NewServer(tb)
	resp, _ := post(t, s.URL()+"/chat/completions", DefaultAPIKey, userHi+`}`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, []string{"llmtest: request #0 has no scripted step"}, tb.errs)
}

func TestRecordedReplayedAsSent(t *testing.T) {
	for _, name := range RecordedNames() {
		t.Run(name, func(t *testing.T) {
			recd, err := loadRecording(name)
			require.NoError(t, err)
			s := NewServer(t)
			s.Enqueue(Recorded(name))
			body := userHi + `}`
			if recd.streamed() {
				body = userHi + `,"stream":true}`
			}
			resp, got := post(t, s.URL()+"/chat/completions", DefaultAPIKey, body)
			assert.Equal(t, recd.status, resp.StatusCode)
			assert.Equal(t, recd.header.Get("Content-Type"), resp.Header.Get("Content-Type"))
			assert.Equal(t, string(recd.body), string(got), "the body byte for byte")
		})
	}
}

func TestRecordedStreamArrivesEventByEvent(t *testing.T) {
	s := NewServer(t)
	step := Recorded("openai-stream-refusal")
	step.ChunkDelay = 300 * time.Millisecond
	s.Enqueue(step)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/chat/completions",
		strings.NewReader(userHi+`,"stream":true}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+DefaultAPIKey)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, `"refusal":""`, "the first event")
	assert.Less(t, time.Since(start), 250*time.Millisecond, "the first event came before the rest were written")
}
