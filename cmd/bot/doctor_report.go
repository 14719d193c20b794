package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm"
)

// errNoToolCalls ends bot doctor with exit 1 once the diagnosis is printed: a model that
// does not call tools proposes nothing in a run.
var errNoToolCalls = errors.New("doctor: the model did not call the tool it was offered: a run with it would write nothing")

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
	return errNoToolCalls
}
