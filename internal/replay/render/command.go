package render

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/replay"
)

// DataSet is the replay data set's place relative to the repository root: it ships with
// the product, compressed (data/humaneval-replay/README.md says from where).
const DataSet = "data/humaneval-replay/problems.jsonl.gz"

// DefaultSeed is the seed of the panel draws the published figures use.
const DefaultSeed = replay.DefaultSeed

// Request is what `bot eval --replay` asks, flag by flag: the data set (Data; "" finds
// DataSet from the working directory up), the draws, the sizes and thresholds to replay,
// where to write the report, and for --execute how many problems and which judge.
type Request struct {
	Data              string
	Seed              int64
	Panels            int
	Sizes, Thresholds string // comma-separated lists, as the flags take them
	Out               string
	Problems          int // --execute: the first N problems; 0 for all
	Judge             Judge
}

// Judge is the sandbox --execute runs the recorded code in.
type Judge struct {
	Sandbox  string
	Parallel int
	Reruns   int // runs that confirm a disagreement; 0: dixit.yml's default
	Logger   *slog.Logger
}

// Replay replays the Dixit rule, CodeT and the hybrid pick on the recorded matrix, prints
// the summary and writes the report under r.Out.
func (r Request) Replay(ctx context.Context, stdout io.Writer) error {
	cfg := replay.DefaultConfig()
	cfg.Seed, cfg.Panels = r.Seed, r.Panels
	var err error
	if cfg.Sizes, err = replay.ParseSizes(r.Sizes); err != nil {
		return fmt.Errorf("eval: --sizes: %w", err)
	}
	if cfg.Rules, err = replay.ParseThresholds(r.Thresholds); err != nil {
		return fmt.Errorf("eval: --thresholds: %w", err)
	}
	start := time.Now()
	problems, path, err := loadReplay(ctx, r.Data, stdout)
	if err != nil {
		return err
	}
	cfg.Kinds = replay.KindsFor(problems, slices.Min(cfg.Sizes))
	rep, err := replay.Run(ctx, problems, cfg, func(msg string) { fmt.Fprintln(stdout, msg) })
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	rep.DataSet = filepath.Base(filepath.Dir(path))
	if err := Summary(stdout, rep); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := Write(r.Out, rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(stdout, "replay done in %.1f s\n", time.Since(start).Seconds())
	return nil
}

// loadReplay reads the replay data set, from data or the default place, and says which
// file it read.
func loadReplay(ctx context.Context, data string, stdout io.Writer) ([]replay.Problem, string, error) {
	path := data
	if path == "" {
		found, err := findReplayData()
		if err != nil {
			return nil, "", fmt.Errorf("eval: %w", err)
		}
		path = found
	}
	start := time.Now()
	fmt.Fprintf(stdout, "loading problems from %s…\n", path)
	problems, err := replay.LoadFile(ctx, path)
	if err != nil {
		return nil, "", fmt.Errorf("eval: %w", err)
	}
	fmt.Fprintf(stdout, "loaded %d problems (%.1f s)\n", len(problems), time.Since(start).Seconds())
	return problems, path, nil
}

// Execute runs the recorded code through the judge's sandbox, compares it with the
// recorded matrix cell by cell, prints the summary and writes the report under r.Out.
func (r Request) Execute(ctx context.Context, stdout io.Writer) error {
	if r.Problems < 0 {
		return fmt.Errorf("eval: --problems %d: want 0 (all) or more", r.Problems)
	}
	problems, _, err := loadReplay(ctx, r.Data, stdout)
	if err != nil {
		return err
	}
	if r.Problems > 0 && r.Problems < len(problems) {
		problems = problems[:r.Problems]
	}
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: replay.ExecContract(), Sandbox: ci.Sandbox(r.Judge.Sandbox),
		Parallel: r.Judge.Parallel, Logger: r.Judge.Logger})
	if err != nil {
		return fmt.Errorf("eval: --execute: the judge: %w", err)
	}
	defer judge.Close()
	if err := replay.CheckJudge(ctx, judge); err != nil {
		return fmt.Errorf("eval: --execute: %w", err)
	}
	reruns := cmp.Or(r.Judge.Reruns, config.Defaults().Reruns)
	fmt.Fprintf(stdout, "executing %d problems in the judge's sandbox (confirming runs: %d reruns)…\n", len(problems), reruns)
	rep, err := replay.Execute(ctx, problems, replay.ExecOptions{Judge: judge, Reruns: reruns,
		Progress: func(msg string) { fmt.Fprintln(stdout, msg) }})
	if err != nil {
		return fmt.Errorf("eval: --execute: %w", err)
	}
	if err := ExecSummary(stdout, rep); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := WriteExec(r.Out, rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	return nil
}

// findReplayData looks for the data set from the working directory and its parents, so
// the default works from anywhere inside a checkout.
func findReplayData() (string, error) {
	dir := "."
	for i := 0; i < 16; i++ {
		candidate := filepath.Join(dir, DataSet)
		if _, err := os.Stat(candidate); err == nil {
			return filepath.Clean(candidate), nil
		}
		dir = filepath.Join(dir, "..")
	}
	return "", fmt.Errorf("no %s beside this checkout: pass --data PATH", DataSet)
}
