package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/doctor"
)

// modelHelp says how --model combines with dixit.yml, for every command that takes it.
const modelHelp = "the `MODEL` every agent uses for this run, overriding agents.model and the per-agent models of dixit.yml " +
	"(default: $DIXIT_MODEL, else what dixit.yml says)"

// modelFlags are --model and --skip-doctor, of the commands that call a model; check is
// false for bot doctor, which is the check.
type modelFlags struct{ doctor.Choice }

func (f *modelFlags) add(cmd *cobra.Command, check bool) {
	if !check { // bot doctor: the flag names the model to check
		cmd.Flags().StringVar(&f.Model, "model", "", "the `MODEL` to check (default: $DIXIT_MODEL, else agents.model of dixit.yml), as run --model would use it")
		return
	}
	cmd.Flags().StringVar(&f.Model, "model", "", modelHelp)
	cmd.Flags().BoolVar(&f.SkipCheck, "skip-doctor", false,
		"start without checking the model first (one short completion; also DIXIT_SKIP_DOCTOR=1)")
}

// start is how a live run gets its model client (doctor.Choice.Start).
func (f *modelFlags) start(getenv func(string) string, logger *slog.Logger, models func() ([]string, error)) doctor.Start {
	return f.Start(getenv, logger, models)
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
			model, source := f.Override(getenv)
			return doctor.Run(cmd.Context(), cmd.OutOrStdout(), doctor.Options{Model: model, Source: source, Config: configPath, Getenv: getenv})
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&configPath, "config", "", "the settings, a dixit.yml `FILE` (default: .github/dixit.yml in this directory, else defaults)")
	return cmd
}
