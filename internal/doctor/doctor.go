// Package doctor checks a model endpoint before runs spend anything on it: bot doctor's
// diagnosis (llm.Doctor), printed one check a line with what Dixit will use and what to
// change, the model a command's flags and environment choose and its start check
// (Choice), and the App's start check of its client (AppClient, ServeClient).
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm"
)

// Options are what bot doctor checks.
type Options struct {
	// Model is the model to check, and Source where it was named (--model, DIXIT_MODEL);
	// "" checks agents.model of the settings.
	Model, Source string
	// Config is the dixit.yml to read; "" reads .github/dixit.yml in the working
	// directory, else the defaults.
	Config string
	Getenv func(string) string
}

// Run checks the endpoint and the model and prints the diagnosis on out. A model that
// cannot work is an error: at once, in one line, when nothing else learnt matters.
func Run(ctx context.Context, out io.Writer, o Options) error {
	settings, file, err := readSettings(o.Config)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	cfg, err := llm.ConfigFromEnv(o.Getenv, nil)
	if err != nil {
		return err
	}
	model, source := o.Model, o.Source
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

// readSettings reads path, else .github/dixit.yml in the working directory, else the
// defaults; it returns the file it read ("" for the defaults).
func readSettings(path string) (config.Settings, string, error) {
	if path == "" {
		path = filepath.Join(".github", "dixit.yml")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return config.Defaults(), "", nil
		}
	}
	s, err := config.Load(path)
	return s, path, err
}

// ErrNoToolCalls ends bot doctor with exit 1 once the diagnosis is printed: a model that
// does not call tools proposes nothing in a run.
var ErrNoToolCalls = errors.New("doctor: the model did not call the tool it was offered: a run with it would write nothing")

// printDiagnosis prints what the doctor found, one check a line, then what Dixit will use
// and what to change.
func printDiagnosis(out io.Writer, d llm.Diagnosis, source string, s config.Settings, file string) error {
	p := func(mark, format string, args ...any) {
		fmt.Fprintf(out, "  %-4s %s\n", mark, fmt.Sprintf(format, args...))
	}
	var todo []string
	fmt.Fprintf(out, "Endpoint: %s\nModel:    %s (%s)\n\n", d.Endpoint, d.Model, source)

	switch m := d.Models; {
	case !m.Listed:
		p("--", "the server has no model list (GET /models): the completions below are the test")
	case m.Found:
		p("ok", "the model is listed by GET /models")
	default:
		p("warn", "GET /models does not list %q; it lists: %s", d.Model, strings.Join(m.IDs, ", "))
		todo = append(todo, "pick a listed model with --model or agents.model, unless the server serves aliases")
	}
	p("ok", "a streamed completion works")

	t := d.Tools
	switch {
	case t.Err != nil && !t.Called:
		p("FAIL", "the tool-call request failed: %v", t.Err)
	case !t.Called:
		p("FAIL", "the model answered without calling the tool it was offered: %q", t.Content)
	case t.Native:
		p("ok", "tool calls: the server sends them as tool calls (native)")
	default:
		p("ok", "tool calls: the model writes them as text (%s); Dixit reads them (recovered)", t.Recovered)
	}
	switch {
	case t.RoundTrip:
		p("ok", "the model answered the tool's result (a round trip)")
	case t.Called:
		p("FAIL", "the model did not answer the tool's result: %v", t.Err)
	}

	c := d.Context
	switch {
	case c.Tokens == 0:
		p("--", "context window: not reported by this server (vLLM, llama.cpp and Ollama report it)")
	case c.Trained:
		p("warn", "context window: the model was trained for %d tokens (%s); Ollama gives it 4096 below 24 GiB of VRAM unless OLLAMA_CONTEXT_LENGTH says more", c.Tokens, c.Source)
		todo = append(todo, fmt.Sprintf("unless Ollama runs so already, give it a larger window: OLLAMA_CONTEXT_LENGTH=%d ollama serve (agents read files; 4096 tokens fill fast)", min(c.Tokens, 32768)))
	case c.Tokens < 16384:
		p("warn", "context window: %d tokens (%s): small for agents that read files", c.Tokens, c.Source)
		todo = append(todo, "give the server a larger context window (16k tokens or more)")
	default:
		p("ok", "context window: %d tokens (%s)", c.Tokens, c.Source)
	}

	if tps := d.Stream.TokensPerSecond(); tps > 0 {
		p("ok", "speed: about %.0f tokens/s (%d tokens in %.1f s, model loading and prompt processing included)",
			tps, d.Stream.CompletionTokens, d.Stream.Elapsed.Seconds())
	} else {
		p("--", "speed: the server reported no token counts")
	}
	where := "agents.price in " + file
	if file == "" {
		where = "agents.price in dixit.yml"
	}
	if pr := s.Agents.Price; pr.Input > 0 || pr.Output > 0 {
		p("ok", "price: $%g in, $%g out per million tokens (%s)", pr.Input, pr.Output, where)
	} else {
		p("--", "price: not set (%s): runs count tokens, not dollars", where)
	}

	fmt.Fprintln(out)
	err := printVerdict(out, t, s.Agents.Tools, &todo)
	if len(todo) > 0 {
		fmt.Fprintln(out, "To change:")
		for _, line := range todo {
			fmt.Fprintf(out, "  - %s\n", line)
		}
	}
	return err
}

// printVerdict says which agents.tools mode Dixit will use with this model, and whether
// the configured one fits.
func printVerdict(out io.Writer, t llm.ToolsCheck, configured string, todo *[]string) error {
	switch t.Mode() {
	case "native":
		fmt.Fprintf(out, "Dixit will use: native tool calls (agents.tools: %s).\n", configured)
		return nil
	case "auto":
		fmt.Fprintf(out, "Dixit will use: the calls the model writes as text (agents.tools: auto).\n")
		if configured == config.ToolsNative {
			*todo = append(*todo, "set agents.tools: auto in dixit.yml: with native, the calls this model writes as text are ignored")
		}
		return nil
	}
	fmt.Fprintln(out, "Dixit cannot use this model: its agents work through tool calls.")
	*todo = append(*todo, "pick a model that calls tools (qwen2.5-coder:7b, llama3.1 and gpt-4o-mini do) with --model or agents.model")
	return ErrNoToolCalls
}

// AppClient is the App's model client. Without a model that replaces every other
// (start.Model: DIXIT_MODEL), each repository's dixit.yml names its model, so the start
// check asks the default model, and only an unreachable endpoint or a refused key stops
// the server: an endpoint without the default model is logged.
func AppClient(ctx context.Context, start llm.Start) (llm.Client, error) {
	if start.Model == "" {
		start.Models = func() ([]string, error) { return []string{config.Defaults().Agents.Model}, nil }
	}
	client, err := start.Client(ctx)
	if start.Model == "" && errors.Is(err, llm.ErrModelNotFound) {
		if start.Logger != nil {
			start.Logger.Warn("the endpoint does not serve the default model; repositories must name theirs in dixit.yml", "err", err)
		}
		start.SkipCheck = true
		return start.Client(ctx)
	}
	return client, err
}
