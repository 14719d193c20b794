package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/render"
)

// replayData is the replay data set's place relative to the repository root: CI clones
// the repository with ../shared beside it.
const replayData = "../shared/data/humaneval-replay/problems.jsonl"

// runEval runs `bot eval`. Only --replay exists so far: it replays the Dixit rule, CodeT
// and the hybrid pick on the recorded HumanEval pass matrix (docs/replay.md).
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	doReplay := fs.Bool("replay", false, "replay selection rules on the recorded pass matrix (no LLM, no execution)")
	data := fs.String("data", "", "problems.jsonl of the replay data set (default: "+replayData+" from the repository root)")
	seed := fs.Int64("seed", replay.DefaultSeed, "seed of the panel draws")
	panels := fs.Int("panels", 20, "panels per problem for each kind and size")
	out := fs.String("out", filepath.Join(".dixit", "eval", "replay"), "where to write replay.md, replay.json and replay.svg")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("eval: unexpected argument %q", fs.Arg(0))
	}
	if !*doReplay {
		return errors.New("eval: the protocol evaluation is not built yet (issue 7, in progress); bot eval --replay replays the recorded HumanEval matrix")
	}
	path := *data
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
	cfg.Seed, cfg.Panels = *seed, *panels
	rep, err := replay.Run(ctx, problems, cfg, func(msg string) { fmt.Fprintln(stdout, msg) })
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := render.Write(*out, rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(stdout, "replay done in %.1f s\n", time.Since(start).Seconds())
	return nil
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
