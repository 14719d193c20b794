package llm_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

func serveJSON(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}

// TestDoctorContextWindow reads the window where each server reports it, from the
// server's root beside /v1.
func TestDoctorContextWindow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		opts        []llmtest.Option
		tokens      int
		source      string
		trained     bool
		wantRequest string
	}{
		{"vLLM", []llmtest.Option{llmtest.WithModels(llmtest.Model{ID: "m", MaxModelLen: 65536})},
			65536, "max_model_len in /v1/models (vLLM)", false, "/v1/models"},
		{"llama.cpp", []llmtest.Option{llmtest.WithRoute("/props", serveJSON(`{"default_generation_settings":{"n_ctx":8192,"params":{"n_predict":-1}},"total_slots":1}`))},
			8192, "n_ctx in /props (llama.cpp server)", false, "/props"},
		{"Ollama with num_ctx", []llmtest.Option{llmtest.WithRoute("/api/show", serveJSON(`{"parameters":"num_ctx                        16384\nstop \"<|im_end|>\"","model_info":{"qwen2.context_length":32768}}`))},
			16384, "num_ctx in /api/show (Ollama)", false, "/api/show"},
		{"Ollama without", []llmtest.Option{llmtest.WithRoute("/api/show", serveJSON(`{"parameters":"stop \"<|im_end|>\"","model_info":{"general.architecture":"llama","llama.context_length":131072}}`))},
			131072, "llama.context_length in /api/show (Ollama)", true, "/api/show"},
		{"none", nil, 0, "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.opts...)
			srv.Enqueue(llmtest.Text("ready"), llmtest.Calls(llmtest.ToolCall{Name: "write_file", Arguments: `{"path":"greet.go","content":"package greet\n"}`}), llmtest.Text("done"))
			d := llm.Doctor(context.Background(), llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()), "m")
			require.NoError(t, d.Fatal)
			assert.Equal(t, tc.tokens, d.Context.Tokens)
			assert.Equal(t, tc.source, d.Context.Source)
			assert.Equal(t, tc.trained, d.Context.Trained)
			assert.Equal(t, "native", d.Tools.Mode())
			if tc.wantRequest != "" {
				var paths []string
				for _, r := range srv.Requests() {
					paths = append(paths, r.Path)
				}
				assert.Contains(t, paths, tc.wantRequest)
			}
		})
	}
}

// TestPreflight is one request; only what stops every run is an error.
func TestPreflight(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Text("ready"),
		llmtest.Step{Status: http.StatusNotFound, Error: &llmtest.APIError{Message: `model "x" not found, try pulling it first`}},
		llmtest.Fault(http.StatusTooManyRequests),
	)
	cfg := llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey())
	require.NoError(t, llm.Preflight(context.Background(), cfg, "m"))
	err := llm.Preflight(context.Background(), cfg, "x")
	require.ErrorIs(t, err, llm.ErrModelNotFound)
	assert.Contains(t, err.Error(), `has no model "x"`)
	assert.NoError(t, llm.Preflight(context.Background(), cfg, "m"), "a busy endpoint is no reason to refuse a run")
	assert.Len(t, srv.Requests(), 3, "one request each, no retries")

	bad := llm.DefaultOpenAIConfig(srv.URL(), "sk-wrong")
	err = llm.Preflight(context.Background(), bad, "m")
	require.ErrorIs(t, err, llm.ErrAuth)
	assert.Contains(t, err.Error(), "check OPENAI_API_KEY")
}
