package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/doctor"
	"github.com/dixit-bot/dixit/internal/llm"
)

// modelHelp says how --model combines with dixit.yml, for every command that takes it.
const modelHelp = "the `MODEL` every agent uses for this run, overriding agents.model and the per-agent models of dixit.yml " +
	"(default: $DIXIT_MODEL, else what dixit.yml says)"

// modelFlags are --model and --skip-doctor, of the commands that call a model; check is
// false for bot doctor, which is the check.
type modelFlags struct {
	model      string
	skipDoctor bool
}

func (f *modelFlags) add(cmd *cobra.Command, check bool) {
	if !check { // bot doctor: the flag names the model to check
		cmd.Flags().StringVar(&f.model, "model", "", "the `MODEL` to check (default: $DIXIT_MODEL, else agents.model of dixit.yml), as run --model would use it")
		return
	}
	cmd.Flags().StringVar(&f.model, "model", "", modelHelp)
	cmd.Flags().BoolVar(&f.skipDoctor, "skip-doctor", false,
		"start without checking the model first (one short completion; also DIXIT_SKIP_DOCTOR=1)")
}

// override is the model named by --model, else DIXIT_MODEL, and where it came from.
func (f *modelFlags) override(getenv func(string) string) (model, source string) {
	if f.model != "" {
		return f.model, "--model"
	}
	if m := getenv("DIXIT_MODEL"); m != "" {
		return m, "DIXIT_MODEL"
	}
	return "", ""
}

// start is how a live run gets its model client (llm.Start); models lists the models to
// check when neither --model nor DIXIT_MODEL names one.
func (f *modelFlags) start(getenv func(string) string, logger *slog.Logger, models func() ([]string, error)) llm.Start {
	model, source := f.override(getenv)
	return llm.Start{Getenv: getenv, Logger: logger, Model: model, Source: source, Models: models,
		SkipCheck: f.skipDoctor || getenv("DIXIT_SKIP_DOCTOR") == "1"}
}

// client is a live run's client for session.Local, and the endpoint's name.
func (f *modelFlags) client(getenv func(string) string, logger *slog.Logger) func(context.Context, func() ([]string, error)) (llm.Client, string, error) {
	return func(ctx context.Context, models func() ([]string, error)) (llm.Client, string, error) {
		start := f.start(getenv, logger, models)
		client, err := start.Client(ctx)
		return client, start.Endpoint(), err
	}
}

func newDoctor(getenv func(string) string) *cobra.Command {
	var f modelFlags
	var configPath string
	cmd := &cobra.Command{
		Use:   "doctor [--model MODEL] [--config FILE]",
		Short: "Check the model endpoint before a run spends money: the model, streaming, tool calls, context, speed, price",
		Long: `Checks the endpoint OPENAI_BASE_URL / OPENAI_API_KEY name, with the model a run would use:
the model is listed (GET /models, where the server has it), a streamed completion works, a
tool call comes back and its result is answered (native calls, or calls the model wrote as
text), the context window where the server reports it (vLLM, llama.cpp, Ollama), tokens per
second, and the price set in dixit.yml. Then it says what Dixit will use and what to change.
It spends three short completions.

Exits 0 when a run can work, 1 when it cannot (the last line says why).`,
		Example: `  OPENAI_BASE_URL=http://localhost:11434/v1 bot doctor --model qwen2.5-coder:7b
  bot doctor --config .github/dixit.yml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath != "" {
				if err := existing("config", configPath, aFile); err != nil {
					return fmt.Errorf("doctor: %w", err)
				}
			}
			model, source := f.override(getenv)
			return doctor.Run(cmd.Context(), cmd.OutOrStdout(), doctor.Options{Model: model, Source: source, Config: configPath, Getenv: getenv})
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&configPath, "config", "", "the settings, a dixit.yml `FILE` (default: .github/dixit.yml in this directory, else defaults)")
	return cmd
}
