package eval

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm"
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

// Command is bot eval without --replay, as its flags ask.
type Command struct {
	// Options are the evaluation's; Bench "" is the bundled benchmark (FindBench).
	Options
	Out string // the report's directory; "" is .dixit/eval
	// Live, when set, starts the client of live agents: the models the tasks' dixit.yml
	// name are checked first, unless Live.Model replaces them all.
	Live *llm.Start
}

// Run runs the benchmark, writes the report, and says on Progress where it went and how
// long it took.
func (c Command) Run(ctx context.Context) error {
	opts := c.Options
	if opts.Bench == "" {
		found, err := FindBench()
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		opts.Bench = found
	}
	if c.Live != nil {
		start := *c.Live
		start.Models = func() ([]string, error) { return Models(opts.Bench) }
		client, err := start.Client(ctx)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		opts.Client, opts.Model = client, start.Model // the report names the model; a run with another is another run
	}
	begin := time.Now()
	rep, err := Run(ctx, opts)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	paths, err := Write(cmp.Or(c.Out, filepath.Join(".dixit", "eval")), rep)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, p := range paths {
		progress(opts.Progress, "wrote %s", p)
	}
	progress(opts.Progress, "eval done in %.1f s: %d runs, %d skipped", time.Since(begin).Seconds(), len(rep.Runs), len(rep.Skipped))
	return nil
}
