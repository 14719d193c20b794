package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// probe asks an endpoint the questions beside chat completions: which models it has and
// how long a context it gives them. Each server has its own route for the latter.
type probe struct {
	cfg  OpenAIConfig
	http *http.Client
}

// modelCard is one entry of GET /models; vLLM adds max_model_len.
type modelCard struct {
	ID          string `json:"id"`
	MaxModelLen int    `json:"max_model_len"`
}

// models asks GET {base}/models. A server without the route is not an error (the
// completion is the test); an unreachable one or a refused key is fatal.
func (p probe) models(ctx context.Context, model string) (ModelsCheck, []modelCard, error) {
	if strings.EqualFold(p.cfg.APIType, APITypeAzure) {
		return ModelsCheck{}, nil, nil // Azure lists deployments elsewhere; the completion tells
	}
	status, body, err := p.do(ctx, http.MethodGet, strings.TrimRight(p.cfg.BaseURL, "/")+"/models", nil)
	if err != nil {
		return ModelsCheck{}, nil, fatal(err, p.cfg.BaseURL, model)
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return ModelsCheck{}, nil, fatal(&StatusError{StatusCode: status, Message: snippet(string(body)), kind: ErrAuth}, p.cfg.BaseURL, model)
	}
	var list struct {
		Data []modelCard `json:"data"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &list) != nil || list.Data == nil {
		return ModelsCheck{}, nil, nil
	}
	m := ModelsCheck{Listed: true}
	for _, c := range list.Data {
		m.IDs = append(m.IDs, c.ID)
		m.Found = m.Found || c.ID == model
	}
	return m, list.Data, nil
}

// contextWindow looks where each server reports it: vLLM's max_model_len in /v1/models,
// llama.cpp's GET /props (default_generation_settings.n_ctx), Ollama's POST /api/show
// (num_ctx in parameters, else the model's trained context_length in model_info).
func (p probe) contextWindow(ctx context.Context, model string, cards []modelCard) ContextCheck {
	for _, c := range cards {
		if c.ID == model && c.MaxModelLen > 0 {
			return ContextCheck{Tokens: c.MaxModelLen, Source: "max_model_len in /v1/models (vLLM)"}
		}
	}
	if strings.EqualFold(p.cfg.APIType, APITypeAzure) {
		return ContextCheck{}
	}
	root := serverRoot(p.cfg.BaseURL)
	if status, body, err := p.do(ctx, http.MethodGet, root+"/props", nil); err == nil && status == http.StatusOK {
		var props struct {
			Default struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		if json.Unmarshal(body, &props) == nil && props.Default.NCtx > 0 {
			return ContextCheck{Tokens: props.Default.NCtx, Source: "n_ctx in /props (llama.cpp server)"}
		}
	}
	req, _ := json.Marshal(map[string]string{"model": model})
	if status, body, err := p.do(ctx, http.MethodPost, root+"/api/show", req); err == nil && status == http.StatusOK {
		return ollamaContext(body)
	}
	return ContextCheck{}
}

var numCtx = regexp.MustCompile(`(?m)^num_ctx\s+(\d+)`)

// ollamaContext reads /api/show: num_ctx set in the model's parameters is the window;
// otherwise model_info's <arch>.context_length is only what the model was trained for.
func ollamaContext(body []byte) ContextCheck {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if json.Unmarshal(body, &show) != nil {
		return ContextCheck{}
	}
	if m := numCtx.FindStringSubmatch(show.Parameters); m != nil {
		n, _ := strconv.Atoi(m[1])
		return ContextCheck{Tokens: n, Source: "num_ctx in /api/show (Ollama)"}
	}
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") && n > 0 {
			return ContextCheck{Tokens: int(n), Source: k + " in /api/show (Ollama)", Trained: true}
		}
	}
	return ContextCheck{}
}

// serverRoot is the server's own root under an OpenAI-style base: Ollama, vLLM and
// llama.cpp serve their extra routes beside /v1, not under it.
func serverRoot(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

// maxProbeBody bounds what a probe reads: a /models list or an /api/show answer.
const maxProbeBody = 4 << 20

// do sends one request with the endpoint's credentials and returns the status and body.
func (p probe) do(ctx context.Context, method, url string, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("llm: build request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	return resp.StatusCode, data, err
}
