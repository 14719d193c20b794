package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/config"
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

// modelOverride sends every request to one model, whatever the agent's settings say:
// --model and DIXIT_MODEL.
type modelOverride struct {
	llm.Client
	model string
}

func (m modelOverride) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Model = m.model
	return m.Client.Chat(ctx, req)
}

// liveClient builds the model client of a live run: the endpoint from the environment,
// the model override, and the start check of the models the run will call (models:
// dixit.yml's, used when there is no override). It refuses when a model cannot work.
func liveClient(ctx context.Context, f *modelFlags, getenv func(string) string, logger *slog.Logger, models func() ([]string, error)) (llm.Client, error) {
	cfg, err := openAIConfigFromEnv(getenv, logger)
	if err != nil {
		return nil, err
	}
	client, err := llm.NewOpenAI(cfg)
	if err != nil {
		return nil, err
	}
	override, _ := f.override(getenv)
	if !f.skipDoctor && getenv("DIXIT_SKIP_DOCTOR") != "1" {
		check := []string{override}
		if override == "" {
			if check, err = models(); err != nil {
				return nil, err
			}
		}
		for _, m := range check {
			if err := llm.Preflight(ctx, cfg, m); err != nil {
				return nil, fmt.Errorf("%w (bot doctor tells more; --skip-doctor or DIXIT_SKIP_DOCTOR=1 starts anyway)", err)
			}
		}
	}
	if override != "" {
		return modelOverride{Client: client, model: override}, nil
	}
	return client, nil
}

// settingsModels lists the distinct models settings name: agents.model and the
// per-agent ones.
func settingsModels(s config.Settings) []string {
	out := []string{s.Agents.Model}
	for _, a := range slices.Concat(s.Agents.Coders, s.Agents.Testers) {
		if a.Model != "" && !slices.Contains(out, a.Model) {
			out = append(out, a.Model)
		}
	}
	return out
}

// runSettings reads the settings a live bot run will use: --config, else
// .github/dixit.yml at HEAD of the repository, else the defaults.
func runSettings(configPath, repo string) (config.Settings, string, error) {
	if configPath != "" {
		s, err := config.Load(configPath)
		return s, configPath, err
	}
	out, err := exec.Command("git", "-C", repo, "show", "HEAD:.github/dixit.yml").Output()
	if err != nil {
		return config.Defaults(), "", nil // no such file at HEAD: the run uses the defaults
	}
	s, err := config.ParseNamed(".github/dixit.yml", out)
	return s, ".github/dixit.yml at HEAD", err
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
			return runDoctor(cmd.Context(), cmd.OutOrStdout(), &f, configPath, getenv)
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringVar(&configPath, "config", "", "the settings, a dixit.yml `FILE` (default: .github/dixit.yml in this directory, else defaults)")
	return cmd
}

// runDoctor runs the checks and prints them; a model that cannot work is an error.
func runDoctor(ctx context.Context, out io.Writer, f *modelFlags, configPath string, getenv func(string) string) error {
	settings, file, err := doctorSettings(configPath)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	cfg, err := openAIConfigFromEnv(getenv, nil)
	if err != nil {
		return err
	}
	model, source := f.override(getenv)
	if model == "" {
		model, source = settings.Agents.Model, "agents.model in "+file
		if file == "" {
			source = "the default: no dixit.yml here"
		}
	}
	d := llm.Doctor(ctx, cfg, model)
	if d.Fatal != nil {
		return d.Fatal // one line: nothing else was learnt that matters
	}
	return printDiagnosis(out, d, source, settings, file)
}

// doctorSettings reads --config, else .github/dixit.yml in the working directory.
func doctorSettings(configPath string) (config.Settings, string, error) {
	if configPath == "" {
		configPath = filepath.Join(".github", "dixit.yml")
		if _, err := os.Stat(configPath); errors.Is(err, os.ErrNotExist) {
			return config.Defaults(), "", nil
		}
	} else if err := existing("config", configPath, aFile); err != nil {
		return config.Settings{}, "", err
	}
	s, err := config.Load(configPath)
	return s, configPath, err
}
