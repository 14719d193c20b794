package llm_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// The bodies the constructed fixtures write and call with.
const (
	greetGo   = "package greet\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n"
	greetTest = "package greet\n\nimport \"testing\"\n\nfunc TestHelloGreetsByName(t *testing.T) {\n\tif got := " +
		"Hello(\"Ada\"); got != \"Hello, Ada\" {\n\t\tt.Fatalf(\"Hello(Ada) = %q\", got)\n\t}\n}\n"
)

// dixitTools are the names the constructed fixtures call, as a coder and a tester offer them.
var dixitTools = []string{"read_file", "write_file", "list_files", "delete_file", "submit_test", "finish"}

// outcome is what the client must make of a recorded reply.
type outcome struct {
	content   string
	calls     []string // "name arguments", ids aside
	finish    string
	usage     *llm.Usage
	recovered string
	err       error  // errors.Is
	errText   string // substring
	requests  int
	sleeps    []time.Duration // nil: a backoff of our own choosing when retried
}

// call is "name {"k1":"v1",...}" with the keys in the order given, as the model wrote them.
func call(name string, kv ...string) string {
	var b strings.Builder
	for i := 0; i < len(kv); i += 2 {
		k, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		fmt.Fprintf(&b, ",%s:%s", k, v)
	}
	return name + " {" + strings.TrimPrefix(b.String(), ",") + "}"
}

// TestRecordedReplies passes each reply of the corpus through the client. Replies that
// are retried are followed by a plain "ok".
func TestRecordedReplies(t *testing.T) {
	tests := []struct {
		name   string
		stream bool
		tools  []string
		want   outcome
	}{
		{name: "openai-stream-parallel-tool-calls", stream: true, tools: []string{"GetWeatherArgs", "get_stock_price"},
			want: outcome{finish: "tool_calls", usage: &llm.Usage{PromptTokens: 149, CompletionTokens: 60}, calls: []string{
				`GetWeatherArgs {"city": "Edinburgh", "country": "UK", "units": "c"}`,
				`get_stock_price {"ticker": "AAPL", "exchange": "NASDAQ"}`}}},
		{name: "openai-stream-refusal", stream: true, want: outcome{finish: "content_filter",
			content: "I'm sorry, I can't assist with that request.", usage: &llm.Usage{PromptTokens: 79, CompletionTokens: 11}}},
		{name: "azure-stream-content-filter-results", stream: true, want: outcome{content: "Capital of Denmark.",
			finish: "stop", usage: &llm.Usage{PromptTokens: 15, CompletionTokens: 78}}},
		{name: "groq-stream-tool-call", stream: true, tools: []string{"weather"}, want: outcome{finish: "tool_calls",
			calls: []string{"weather {}"}, usage: &llm.Usage{PromptTokens: 210, CompletionTokens: 15}}},
		{name: "deepseek-stream-tool-call", stream: true, tools: []string{"weather"}, want: outcome{finish: "tool_calls",
			calls: []string{`weather {"location": "San Francisco"}`}, usage: &llm.Usage{PromptTokens: 374, CompletionTokens: 61}}},
		{name: "vllm-qwen-tool-call-stop-reason", want: outcome{finish: "tool_calls", calls: []string{`read_file {"path": "go.mod"}`},
			usage: &llm.Usage{PromptTokens: 412, CompletionTokens: 25}}},
		{name: "vllm-qwen-stream-stop-reason", stream: true, want: outcome{finish: "stop", content: "Done: the test passes.",
			usage: &llm.Usage{PromptTokens: 1500, CompletionTokens: 8}}},
		{name: "lmstudio-tool-call", want: outcome{finish: "tool_calls", calls: []string{`read_file {"path":"go.mod"}`}}},
		{name: "ollama-two-parallel-calls-stream", stream: true, want: outcome{finish: "tool_calls", calls: []string{
			`read_file {"path":"go.mod"}`, `list_files {"path":".","recursive":true}`}}},
		{name: "ollama-qwen2.5-coder-call-as-json", want: outcome{finish: "tool_calls", recovered: "json",
			calls: []string{call("write_file", "path", "greet.go", "content", greetGo)}}},
		{name: "ollama-qwen2.5-coder-call-as-json-stream", stream: true, want: outcome{finish: "tool_calls", recovered: "json",
			calls: []string{call("write_file", "path", "greet.go", "content", greetGo)},
			usage: &llm.Usage{PromptTokens: 1034, CompletionTokens: 61}}},
		{name: "ollama-qwen2.5-coder-call-in-json-fence-stream", stream: true, want: outcome{finish: "tool_calls",
			recovered: "fenced json", calls: []string{call("submit_test", "content", greetTest)}}},
		{name: "llamacpp-qwen3-coder-markup-leaks-beside-the-call", want: outcome{finish: "tool_calls",
			content: "I'll look at the files in the repository first.", calls: []string{`list_files {"path":"."}`},
			recovered: "leaked markup: qwen3-coder markup"}},
		{name: "llamacpp-qwen3-coder-markup-only", want: outcome{finish: "tool_calls", content: "I'll write the greeting function.",
			calls: []string{call("write_file", "content", greetGo, "path", "greet.go")}, recovered: "qwen3-coder markup"}},
		{name: "llamacpp-arguments-as-object", want: outcome{finish: "tool_calls", calls: []string{`read_file {"path":"go.mod"}`}}},
		{name: "llamacpp-llama3-python-tag", want: outcome{finish: "tool_calls", calls: []string{`read_file {"path":"go.mod"}`},
			recovered: "llama python_tag"}},
		{name: "llamacpp-stream-error-event", stream: true, want: outcome{err: llm.ErrContextLength}},
		{name: "openai-stream-error-mid-stream", stream: true, want: outcome{content: "ok", requests: 2}},
		{name: "openrouter-stream-error-mid-stream", stream: true, want: outcome{content: "ok", requests: 2}},
		{name: "openrouter-200-error-body", want: outcome{content: "ok", requests: 2}},
		{name: "openai-429-try-again-in-message", want: outcome{content: "ok", requests: 2,
			sleeps: []time.Duration{26604 * time.Millisecond}}},
		{name: "openai-429-rate-limit-headers", want: outcome{content: "ok", requests: 2,
			sleeps: []time.Duration{120 * time.Millisecond}}},
		{name: "openai-400-context-length-exceeded", want: outcome{err: llm.ErrContextLength}},
		{name: "deepseek-400-context-length", want: outcome{err: llm.ErrContextLength}},
		{name: "azure-400-prompt-filtered", want: outcome{finish: "content_filter",
			content: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. " +
				"Please modify your prompt and retry. To learn more about our content filtering policies please read " +
				"our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"}},
		{name: "dashscope-400-malformed-arguments-in-history", want: outcome{errText: `status 400 (invalid_parameter_error): ` +
			`<400> InternalError.Algo.InvalidParameter: The "function.arguments" parameter of the code model must be in JSON format.`}},
	}
	known := map[string]bool{}
	for _, tc := range tests {
		known[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Recorded(tc.name), llmtest.Text("ok"))
			c, sl := newClient(t, srv, tc.stream, nil)
			req := hello()
			for _, name := range append(tc.tools, dixitTools...) {
				req.Tools = append(req.Tools, llm.Tool{Name: name, Description: name})
			}
			got, err := c.Chat(t.Context(), req)
			checkOutcome(t, tc.want, got, err)
			if tc.want.requests == 0 {
				tc.want.requests = 1
			}
			assert.Len(t, srv.Requests(), tc.want.requests, "requests the server saw")
			switch {
			case tc.want.sleeps != nil:
				assert.Equal(t, tc.want.sleeps, sl.all(), "the server's word on how long to wait")
			case tc.want.requests > 1:
				assert.Len(t, sl.all(), 1, "one backoff")
			default:
				assert.Empty(t, sl.all())
			}
		})
	}
	for _, name := range llmtest.RecordedNames() {
		assert.True(t, known[name], "testdata/recorded/%s.http has no expectation here", name)
	}
}

func checkOutcome(t *testing.T, want outcome, got llm.Response, err error) {
	t.Helper()
	switch {
	case want.err != nil:
		require.ErrorIs(t, err, want.err)
		return
	case want.errText != "":
		require.ErrorContains(t, err, want.errText)
		return
	}
	require.NoError(t, err)
	var calls []string
	for _, c := range got.Message.ToolCalls {
		assert.NotEmpty(t, c.ID, "every call has an id the tool's answer can name")
		calls = append(calls, c.Name+" "+c.Arguments)
	}
	assert.Equal(t, want.calls, calls)
	assert.Equal(t, want.content, got.Message.Content)
	assert.Equal(t, want.recovered, got.Recovered)
	if recovered := want.recovered != "" && !strings.HasPrefix(want.recovered, "leaked markup"); recovered {
		assert.Equal(t, len(want.calls), got.RecoveredCalls(), "calls taken from the text are counted")
	} else {
		assert.Zero(t, got.RecoveredCalls(), "the server's own calls are not counted as recovered")
	}
	if want.finish != "" {
		assert.Equal(t, want.finish, got.FinishReason)
	}
	if want.usage != nil {
		assert.Equal(t, *want.usage, got.Usage)
	}
}

// TestAStrictServerAcceptsTheHistoryAfterMalformedArguments: DashScope refuses every
// request whose history replays arguments that are not JSON; the client sends a
// well-formed record of them instead.
func TestAStrictServerAcceptsTheHistoryAfterMalformedArguments(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Reply(func(r llmtest.RecordedRequest) llmtest.Step {
		for _, m := range r.Messages {
			for _, tc := range m.ToolCalls {
				var args map[string]any
				if json.Unmarshal([]byte(tc.Function.Arguments), &args) != nil {
					return llmtest.Recorded("dashscope-400-malformed-arguments-in-history")
				}
			}
		}
		return llmtest.Text("ok")
	})
	c, _ := newClient(t, srv, true, nil)
	req := hello()
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "write_file", Arguments: `{"path": "x.go", "content": 3`},
			{ID: "call_2", Name: "read_file", Arguments: `{"path": "go.mod"}`},
		}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "error: the arguments are not valid JSON"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_2", Content: "module x"},
		llm.Message{Role: llm.RoleUser, Content: "Go on."},
	)
	got, err := c.Chat(t.Context(), req)
	require.NoError(t, err)
	assert.Equal(t, "ok", got.Message.Content)
	sent := srv.Requests()[0].Messages[2].ToolCalls
	assert.JSONEq(t, `{"_unparsed": "{\"path\": \"x.go\", \"content\": 3"}`, sent[0].Function.Arguments,
		"what the model wrote is still there to see, as JSON")
	assert.Equal(t, `{"path": "go.mod"}`, sent[1].Function.Arguments, "good arguments go as they were")
	assert.Equal(t, `{"path": "x.go", "content": 3`, req.Messages[2].ToolCalls[0].Arguments,
		"the caller's history is not changed")
}

// TestRecoveryOnlyForOfferedToolsAndWhenConfigured: a JSON blob is only a call when it
// names a tool the request offered, and recovery can be switched off, for the client or
// for one request (an agent configured with agents.tools: native).
func TestRecoveryOnlyForOfferedToolsAndWhenConfigured(t *testing.T) {
	tests := []struct {
		name       string
		tools      []string
		recover    bool
		nativeOnly bool
		calls      int
	}{
		{name: "offered", tools: dixitTools, recover: true, calls: 1},
		{name: "not offered", tools: []string{"read_file"}, recover: true},
		{name: "no tools at all", recover: true},
		{name: "switched off", tools: dixitTools},
		{name: "switched off for the request", tools: dixitTools, recover: true, nativeOnly: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Recorded("ollama-qwen2.5-coder-call-as-json"))
			c, _ := newClient(t, srv, false, func(cfg *llm.OpenAIConfig) { cfg.RecoverCalls = tc.recover })
			req := hello()
			req.NativeCallsOnly = tc.nativeOnly
			for _, name := range tc.tools {
				req.Tools = append(req.Tools, llm.Tool{Name: name})
			}
			got, err := c.Chat(t.Context(), req)
			require.NoError(t, err)
			assert.Len(t, got.Message.ToolCalls, tc.calls)
			assert.Equal(t, tc.calls, got.RecoveredCalls())
			if tc.calls == 0 {
				assert.Contains(t, got.Message.Content, `"name": "write_file"`, "the text is left as the model wrote it")
				assert.Equal(t, "stop", got.FinishReason)
				assert.Empty(t, got.Recovered)
			}
		})
	}
}

// TestTheLimiterSpacesTheAgentsOfAnEndpoint: when the endpoint says it is overloaded,
// the agents that share its client wait too, and then start one after the other.
func TestTheLimiterSpacesTheAgentsOfAnEndpoint(t *testing.T) {
	srv := llmtest.NewServer(t)
	arrived := make(chan time.Time, 8)
	srv.Reply(func(r llmtest.RecordedRequest) llmtest.Step {
		arrived <- time.Now()
		if r.Index == 0 {
			return llmtest.Step{Status: 429, Header: map[string][]string{"Retry-After-Ms": {"1000"}}}
		}
		return llmtest.Text(fmt.Sprintf("answer %d", r.Index))
	})
	c, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey())) // real clock, real sleeps
	require.NoError(t, err)

	first := make(chan error, 1)
	go func() {
		_, err := c.Chat(t.Context(), hello())
		first <- err
	}()
	overloaded := <-arrived
	time.Sleep(100 * time.Millisecond) // the first agent has read its 429
	_, err = c.Chat(t.Context(), hello())
	require.NoError(t, err)
	require.NoError(t, <-first)

	a, b := <-arrived, <-arrived
	if b.Before(a) {
		a, b = b, a
	}
	assert.GreaterOrEqual(t, a.Sub(overloaded), 950*time.Millisecond, "nobody comes back before the endpoint said")
	assert.GreaterOrEqual(t, b.Sub(a), 200*time.Millisecond, "then the agents start one after the other")
}

// TestFinishReasonsAreSurfaced: a reply cut by the token limit and a refusal are
// replies the agent can tell apart, not errors and not ordinary answers.
func TestFinishReasonsAreSurfaced(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Step{Content: "func main() {", FinishReason: "length"}, llmtest.Recorded("openai-stream-refusal"))
	c, _ := newClient(t, srv, true, nil)
	cut, err := c.Chat(t.Context(), hello())
	require.NoError(t, err)
	assert.True(t, cut.Truncated())
	assert.False(t, cut.Refused())
	refused, err := c.Chat(t.Context(), hello())
	require.NoError(t, err)
	assert.True(t, refused.Refused())
	assert.False(t, refused.Truncated())
	assert.Len(t, srv.Requests(), 2, "neither is retried")
}
