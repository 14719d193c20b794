package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// The model client a run starts with: the endpoint the environment names (the OpenAI
// client conventions), a model that replaces every agent's, and one short check of each
// model before anything is spent (bot run, bot eval --live, bot serve).

// noEndpoint is what a live run says when no model endpoint is configured.
const noEndpoint = `no LLM endpoint configured. Set one of:
  OPENAI_API_KEY=sk-...                                  OpenAI
  OPENAI_BASE_URL=http://localhost:11434/v1              Ollama (any OpenAI-compatible server: vLLM, llama.cpp, ...)
  OPENAI_BASE_URL=https://NAME.openai.azure.com OPENAI_API_KEY=... OPENAI_API_TYPE=azure OPENAI_API_VERSION=2024-06-01
and choose models in dixit.yml (agents.model). To watch Dixit work without a model, run: bot demo`

// ConfigFromEnv reads the endpoint from OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_API_TYPE
// and OPENAI_API_VERSION; with neither of the first two, the error says how to set one.
func ConfigFromEnv(getenv func(string) string, logger *slog.Logger) (OpenAIConfig, error) {
	key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL")
	if key == "" && base == "" {
		return OpenAIConfig{}, errors.New(noEndpoint)
	}
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	cfg := DefaultOpenAIConfig(base, key)
	cfg.APIType, cfg.APIVersion, cfg.Logger = getenv("OPENAI_API_TYPE"), getenv("OPENAI_API_VERSION"), logger
	return cfg, nil
}

// EndpointName names the endpoint the environment points at, for a person.
func EndpointName(getenv func(string) string) string {
	if base := getenv("OPENAI_BASE_URL"); base != "" {
		return base
	}
	return "OpenAI"
}

// WithModel sends every request to model, whatever the agent's settings say (--model,
// DIXIT_MODEL).
func WithModel(c Client, model string) Client { return modelOverride{Client: c, model: model} }

type modelOverride struct {
	Client
	model string
}

func (m modelOverride) Chat(ctx context.Context, req Request) (Response, error) {
	req.Model = m.model
	return m.Client.Chat(ctx, req)
}

// Start is how a run gets its model client.
type Start struct {
	Getenv func(string) string
	Logger *slog.Logger
	// Model replaces every model the settings name; "" keeps theirs. Source says where it
	// was named (--model, DIXIT_MODEL), for a person.
	Model, Source string
	// SkipCheck starts without asking each model once first (--skip-doctor).
	SkipCheck bool
	// Models lists the models to check when Model is "" (the settings'); nil checks none.
	Models func() ([]string, error)
}

// Endpoint names the endpoint, and the model that replaces the settings' ones, for a
// person.
func (s Start) Endpoint() string {
	name := EndpointName(s.Getenv)
	if s.Model != "" {
		name += ", model " + s.Model + " from " + s.Source
	}
	return name
}

// Client builds the client from the environment and, unless SkipCheck, asks each model
// the run will call for one short completion (Preflight): it refuses a model that cannot
// work, before the run spends anything.
func (s Start) Client(ctx context.Context) (Client, error) {
	cfg, err := ConfigFromEnv(s.Getenv, s.Logger)
	if err != nil {
		return nil, err
	}
	client, err := NewOpenAI(cfg)
	if err != nil {
		return nil, err
	}
	if !s.SkipCheck {
		check := []string{s.Model}
		if s.Model == "" {
			check = nil
			if s.Models != nil {
				if check, err = s.Models(); err != nil {
					return nil, err
				}
			}
		}
		for _, m := range check {
			if err := Preflight(ctx, cfg, m); err != nil {
				return nil, fmt.Errorf("%w (bot doctor tells more; --skip-doctor or DIXIT_SKIP_DOCTOR=1 starts anyway)", err)
			}
		}
	}
	if s.Model != "" {
		return WithModel(client, s.Model), nil
	}
	return client, nil
}
