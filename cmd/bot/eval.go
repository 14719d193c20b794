package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/eval"
	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/render"
)

// replayData is the replay data set's place relative to the repository root: CI clones
// the repository with ../shared beside it.
const replayData = "../shared/data/humaneval-replay/problems.jsonl"

// benchDir is the bundled benchmark, relative to the repository root.
const benchDir = "examples/bench"

// runEval runs `bot eval`: the protocols on a benchmark with hidden tests (docs/eval.md),
// or with --replay the Dixit rule, CodeT and the hybrid pick on the recorded HumanEval
// pass matrix (docs/replay.md).
func runEval(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bench := fs.String("bench", "", "benchmark directory (default: "+benchDir+" from the repository root)")
	protocols := fs.String("protocols", strings.Join(config.Protocols, ","), "protocols to run, comma-separated")
	state := fs.String("state", ".dixit", "state directory: runs, workshop repositories, caches")
	buildCache := fs.String("build-cache", "", "toolchain build cache for the judge (default: STATE/cache/build)")
	fresh := fs.Bool("fresh", false, "discard earlier runs of the same populations and start over")
	sandbox := fs.String("sandbox", "auto", "judge isolation: auto (bubblewrap when it works), bwrap (or fail), none")
	parallel := fs.Int("parallel", 0, "jobs the judge runs at once (default: number of cores)")
	live := fs.Bool("live", false, "live LLM agents configured by each task's dixit.yml (OPENAI_API_KEY / OPENAI_BASE_URL), not the scripted ones")
	doReplay := fs.Bool("replay", false, "replay selection rules on the recorded pass matrix (no LLM, no execution)")
	data := fs.String("data", "", "--replay: problems.jsonl of the replay data set (default: "+replayData+" from the repository root)")
	seed := fs.Int64("seed", replay.DefaultSeed, "--replay: seed of the panel draws")
	panels := fs.Int("panels", 20, "--replay: panels per problem for each kind and size")
	out := fs.String("out", "", "where to write the report (default: .dixit/eval, or .dixit/eval/replay with --replay)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("eval: unexpected argument %q", fs.Arg(0))
	}
	if *doReplay {
		if *out == "" {
			*out = filepath.Join(".dixit", "eval", "replay")
		}
		return runReplay(ctx, *data, *seed, *panels, *out, stdout)
	}
	if *out == "" {
		*out = filepath.Join(".dixit", "eval")
	}
	dir := *bench
	if dir == "" {
		found, err := findUp(filepath.Join(benchDir, "README.md"))
		if err != nil {
			return fmt.Errorf("eval: the bundled benchmark: %w (or pass --bench DIR)", err)
		}
		dir = filepath.Dir(found)
	}
	opts := eval.Options{
		Bench: dir, Protocols: splitList(*protocols), StateDir: *state, BuildCache: *buildCache, Fresh: *fresh,
		Sandbox: ci.Sandbox(*sandbox), Parallel: *parallel, Progress: stdout,
	}
	if *live {
		client, err := clientFromEnv(getenv, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
		if err != nil {
			return err
		}
		opts.Client = client
	}
	start := time.Now()
	rep, err := eval.Run(ctx, opts)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := eval.Write(*out, rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(stdout, "eval done in %.1f s: %d runs, %d skipped\n", time.Since(start).Seconds(), len(rep.Runs), len(rep.Skipped))
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// runReplay replays the Dixit rule, CodeT and the hybrid pick on the recorded matrix.
func runReplay(ctx context.Context, data string, seed int64, panels int, out string, stdout io.Writer) error {
	path := data
	if path == "" {
		found, err := findReplayData()
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		path = found
	}
	start := time.Now()
	fmt.Fprintf(stdout, "loading problems from %s…\n", path)
	problems, err := replay.LoadFile(ctx, path)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	fmt.Fprintf(stdout, "loaded %d problems (%.1f s)\n", len(problems), time.Since(start).Seconds())
	cfg := replay.DefaultConfig()
	cfg.Seed, cfg.Panels = seed, panels
	rep, err := replay.Run(ctx, problems, cfg, func(msg string) { fmt.Fprintln(stdout, msg) })
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := render.Write(out, rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(stdout, "replay done in %.1f s\n", time.Since(start).Seconds())
	return nil
}

// findUp looks for rel from the working directory and its parents, so the defaults work
// from anywhere inside a checkout.
func findUp(rel string) (string, error) {
	dir := "."
	for i := 0; i < 16; i++ {
		candidate := filepath.Join(dir, rel)
		if _, err := os.Stat(candidate); err == nil {
			return filepath.Clean(candidate), nil
		}
		dir = filepath.Join(dir, "..")
	}
	return "", fmt.Errorf("no %s in this directory or its parents", rel)
}

// findReplayData looks for the data set from the working directory and its parents, so
// the default works from anywhere inside a checkout.
func findReplayData() (string, error) {
	dir := "."
	for i := 0; i < 16; i++ {
		candidate := filepath.Join(dir, replayData)
		if _, err := os.Stat(candidate); err == nil {
			return filepath.Clean(candidate), nil
		}
		dir = filepath.Join(dir, "..")
	}
	return "", fmt.Errorf("no %s beside this checkout: pass --data PATH", replayData)
}
