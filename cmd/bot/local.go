package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/classify"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/localrun"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/patchdiff"
	"github.com/dixit-bot/dixit/internal/vet"
)

// noEndpoint is what a live run says when no model endpoint is configured.
const noEndpoint = `no LLM endpoint configured. Set one of:
  OPENAI_API_KEY=sk-...                                  OpenAI
  OPENAI_BASE_URL=http://localhost:11434/v1              Ollama (any OpenAI-compatible server: vLLM, llama.cpp, ...)
  OPENAI_BASE_URL=https://NAME.openai.azure.com OPENAI_API_KEY=... OPENAI_API_TYPE=azure OPENAI_API_VERSION=2024-06-01
and choose models in dixit.yml (agents.model). To watch Dixit work without a model, run: bot demo`

// runLocal runs `bot demo` and `bot run`.
func runLocal(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	population := fs.String("population", "", "scripted population directory (spec.md, dixit.yml, base/, coders/, testers/)")
	spec := fs.String("spec", "", "live run: the spec, a Markdown file as an issue body would state it")
	repo := fs.String("repo", ".", "live run: the git repository; its HEAD commit is the base revision")
	configPath := fs.String("config", "", "live run: dixit.yml (default: .github/dixit.yml at HEAD, else defaults)")
	state := fs.String("state", ".dixit", "state directory: runs, workshop repositories, caches")
	buildCache := fs.String("build-cache", "", "toolchain build cache for the judge (default: STATE/cache/build)")
	fresh := fs.Bool("fresh", false, "discard an earlier run with the same inputs and start over")
	sandbox := fs.String("sandbox", "auto", "judge isolation: auto (bubblewrap when it works), bwrap (or fail), none")
	parallel := fs.Int("parallel", 0, "jobs the judge runs at once (default: number of cores)")
	verbose := fs.Bool("v", false, "log details to stderr")
	var patch, resume *string
	if cmd == "run" {
		resume = fs.String("resume", "", "resume the run with this id (under STATE/runs/) from its own inputs, carrying out the decisions `bot decide` recorded")
	}
	if cmd == "vet" {
		patch = fs.String("patch", "", "the patch under review: a diff file (git diff, git format-patch, a pull request's .diff) applied to the base, a directory holding the whole patched tree, or a branch or commit of --repo")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	opts := localrun.Options{
		Population: *population, Spec: *spec, Repo: *repo, Config: *configPath,
		StateDir: *state, BuildCache: *buildCache, Fresh: *fresh,
		Sandbox: ci.Sandbox(*sandbox), Parallel: *parallel, Progress: stdout,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	}
	var out *localrun.Outcome
	var err error
	if resume != nil && *resume != "" {
		in, err := localrun.ReadInputs(*state, *resume)
		if err != nil {
			return err
		}
		opts.RunID, opts.Population, opts.Spec, opts.Config, opts.Protocol = *resume, in.Population, in.Spec, in.Config, in.Protocol
		if in.Repo != "" {
			opts.Repo = in.Repo
		}
	}
	if cmd == "vet" {
		if opts.Patch, err = patchTree(*patch, *population, *repo); err != nil {
			return err
		}
	}
	switch {
	case cmd == "demo" || opts.Population != "":
		if opts.Population == "" {
			if opts.Population, err = findDemo(); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "Dixit %s — scripted population from %s: hand-written coders and testers stand in for the LLM; no model is called.\n", cmd, opts.Population)
		fmt.Fprintf(stdout, "The judge is real: every verdict comes from running the tests in a sandbox.\n\n")
		out, err = localrun.Run(ctx, opts)
	case opts.Spec != "":
		if opts.Client, err = clientFromEnv(getenv, opts.Logger); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Dixit run — live agents on %s (%s), spec %s\n\n", opts.Repo, endpointName(getenv), opts.Spec)
		out, err = localrun.RunLive(ctx, opts)
	default:
		return errors.New("run: give --spec FILE (live agents on --repo DIR) or --population DIR (scripted agents); try `bot demo`")
	}
	if err != nil {
		return err
	}
	s := out.Summary
	fmt.Fprintf(stdout, "\nOutcome: %s — %s\n", s.Outcome, s.Reason)
	if s.Accepted != "" {
		fmt.Fprintf(stdout, "Accepted: %s's implementation.\n", s.Accepted)
	} else if fitting := orchestrate.Fitting(s.Standing); len(fitting) > 0 && cmd != "vet" {
		fmt.Fprintf(stdout, "A human decides now; then `bot run --resume %s --state %s` goes on from here:\n", s.Run, *state)
		for _, f := range fitting {
			line := fmt.Sprintf("  bot decide %s %s", s.Run, f.Usage)
			if f.Choices != "" {
				line += "    (" + f.Choices + ")"
			}
			fmt.Fprintln(stdout, line)
		}
	}
	fmt.Fprintf(stdout, "%d rounds, %d vetted tests; judge: %d executions, %d cache hits, %.1f s; journal: %d entries (%d replayed), %.2f s of %.1f s wall time\n",
		s.Rounds, len(s.Vetted), s.Judge.Executions, s.Judge.CacheHits, s.Judge.Seconds, s.Journal.Entries, s.Journal.Replayed, s.Journal.Seconds, s.WallSeconds)
	if tokens := s.Spend.PromptTokens + s.Spend.CompletionTokens; tokens > 0 {
		fmt.Fprintf(stdout, "Model: %d prompt + %d completion tokens", s.Spend.PromptTokens, s.Spend.CompletionTokens)
		if s.Spend.CostUSD > 0 {
			fmt.Fprintf(stdout, ", about $%.2f", s.Spend.CostUSD)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "Report:  %s (and %s)\nSummary: %s\nHidden state (git): %s\n", out.Report, out.HTML, out.JSON, out.RunDir+"/workshop.git")
	if v := s.Vet; v != nil {
		fmt.Fprintf(stdout, "\nThe patch: %s — %s\n", v.Conclusion, v.Why)
		if v.Conclusion == vet.Failure {
			return errPatchFails
		}
	}
	return nil
}

// errPatchFails makes `bot vet` exit non-zero when the patch fails a vetted test, so a
// script can stop on it.
var errPatchFails = errors.New("the patch fails vetted tests (see the report)")

// patchTree reads the patch under review: a diff file applied to the run's base (the
// population's base/, else HEAD of repo), a directory with the whole patched tree, or a
// revision (branch, tag, commit) of the repository.
func patchTree(patch, population, repo string) (ci.Tree, error) {
	if patch == "" {
		return nil, errors.New("vet: give --patch FILE (a diff against the base), --patch DIR (the whole patched tree) or --patch REV (a branch or commit of --repo)")
	}
	if info, err := os.Stat(patch); err == nil {
		switch {
		case info.IsDir():
			return classify.DirTree(patch)
		case info.Mode().IsRegular():
			return diffTree(patch, population, repo)
		}
	}
	tree, err := classify.RepoTree(repo, patch)
	if err != nil {
		return nil, fmt.Errorf("vet: --patch %s is neither a diff file, a directory nor a revision of %s: %w", patch, repo, err)
	}
	return tree, nil
}

// diffTree applies the diff in the file at path to the run's base revision.
func diffTree(path, population, repo string) (ci.Tree, error) {
	var base []gitstate.File
	var err error
	baseName := filepath.Join(population, "base")
	if population != "" {
		var tree *classify.Files
		if tree, err = classify.DirTree(baseName); err == nil {
			base = tree.Files()
		}
	} else {
		baseName = "HEAD of " + repo
		base, _, err = gitstate.ReadHead(repo)
	}
	if err != nil {
		return nil, fmt.Errorf("vet: the base to apply --patch %s to: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vet: --patch: %w", err)
	}
	defer f.Close()
	files, err := patchdiff.Apply(base, f)
	if errors.Is(err, patchdiff.ErrNoDiff) {
		return nil, fmt.Errorf("vet: --patch %s holds no diff", path)
	}
	if err != nil {
		return nil, fmt.Errorf("vet: --patch %s does not apply to %s: %w", path, baseName, err)
	}
	tree, err := classify.GitTree(files)
	if err != nil {
		return nil, fmt.Errorf("vet: --patch %s: the patched tree: %w", path, err)
	}
	return tree, nil
}

// clientFromEnv builds the model client from the OpenAI client conventions.
func clientFromEnv(getenv func(string) string, logger *slog.Logger) (llm.Client, error) {
	key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL")
	if key == "" && base == "" {
		return nil, errors.New(noEndpoint)
	}
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	cfg := llm.DefaultOpenAIConfig(base, key)
	cfg.APIType, cfg.APIVersion, cfg.Logger = getenv("OPENAI_API_TYPE"), getenv("OPENAI_API_VERSION"), logger
	return llm.NewOpenAI(cfg)
}

func endpointName(getenv func(string) string) string {
	if base := getenv("OPENAI_BASE_URL"); base != "" {
		return base
	}
	return "OpenAI"
}
