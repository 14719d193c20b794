package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/session"
)

// Protocols are the protocols bot eval compares unless told otherwise: every one.
var Protocols = config.Protocols

// BenchDir is the bundled benchmark, relative to the repository root.
const BenchDir = "examples/bench"

// FindBench finds the bundled benchmark from the working directory or its parents.
func FindBench() (string, error) {
	found, err := session.FindUp(filepath.Join(BenchDir, "README.md"))
	if err != nil {
		return "", fmt.Errorf("the bundled benchmark: %w (or give --bench DIR)", err)
	}
	return filepath.Dir(found), nil
}

// Models lists the models the benchmark's tasks name in their dixit.yml, for the start
// check of bot eval --live.
func Models(bench string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(bench, "*", "dixit.yml"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		s, err := config.Load(p)
		if err != nil {
			return nil, err
		}
		for _, m := range s.Models() {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// RunAndWrite runs the benchmark as opts say, writes the report under dir, and says on
// opts.Progress where it went and how long it took.
func RunAndWrite(ctx context.Context, opts Options, dir string) error {
	start := time.Now()
	rep, err := Run(ctx, opts)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := Write(dir, rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		progress(opts.Progress, "wrote %s", p)
	}
	progress(opts.Progress, "eval done in %.1f s: %d runs, %d skipped", time.Since(start).Seconds(), len(rep.Runs), len(rep.Skipped))
	return nil
}
