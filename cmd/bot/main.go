// Command bot is Dixit's one binary: `demo` runs the protocol offline on the bundled
// example, `run` runs it on a population directory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/localrun"
)

const usage = `usage: bot <command> [flags]

commands:
  demo   run the Dixit protocol offline on the bundled example (scripted agents, real judge)
  run    run the Dixit protocol on a population directory (--population DIR)

Run "bot <command> -h" for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("missing command")
	}
	switch args[0] {
	case "demo":
		return runPopulation(ctx, "demo", args[1:], stdout, stderr)
	case "run":
		return runPopulation(ctx, "run", args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// demoPopulation is the bundled example, relative to the repository root.
const demoPopulation = "examples/semver"

// findDemo looks for the bundled example in the working directory and its parents, so the
// demo also works from inside the repository's subdirectories.
func findDemo() (string, error) {
	dir := "."
	for i := 0; i < 16; i++ {
		candidate := filepath.Join(dir, demoPopulation)
		if _, err := os.Stat(filepath.Join(candidate, "dixit.yml")); err == nil {
			return filepath.Clean(candidate), nil
		}
		dir = filepath.Join(dir, "..")
	}
	return "", fmt.Errorf("the demo reads its example from %s in the repository: run it inside a checkout (or pass --population DIR)", demoPopulation)
}

func runPopulation(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	population := fs.String("population", "", "population directory (spec.md, dixit.yml, base/, coders/, testers/)")
	state := fs.String("state", ".dixit", "state directory: runs, workshop repositories, caches")
	buildCache := fs.String("build-cache", "", "toolchain build cache for the judge (default: STATE/cache/build)")
	fresh := fs.Bool("fresh", false, "discard an earlier run of the same population and start over")
	sandbox := fs.String("sandbox", "auto", "judge isolation: auto (bubblewrap when it works), bwrap (or fail), none")
	parallel := fs.Int("parallel", 0, "jobs the judge runs at once (default: number of cores)")
	verbose := fs.Bool("v", false, "log judge details to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cmd == "demo" && *population == "" {
		found, err := findDemo()
		if err != nil {
			return err
		}
		*population = found
	}
	if *population == "" {
		return errors.New("run: --population DIR is required (live LLM agents arrive with `bot run --spec`; try `bot demo`)")
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	fmt.Fprintf(stdout, "Dixit %s — scripted population from %s: hand-written coders and testers stand in for the LLM; no model is called.\n", cmd, *population)
	fmt.Fprintf(stdout, "The judge is real: every verdict comes from running the tests in a sandbox.\n\n")
	out, err := localrun.Run(ctx, localrun.Options{
		Population: *population, StateDir: *state, BuildCache: *buildCache, Fresh: *fresh,
		Sandbox: ci.Sandbox(*sandbox), Parallel: *parallel, Progress: stdout, Logger: logger,
	})
	if err != nil {
		return err
	}
	s := out.Summary
	fmt.Fprintf(stdout, "\nOutcome: %s — %s\n", s.Outcome, s.Reason)
	fmt.Fprintf(stdout, "%d rounds, %d vetted tests; judge: %d executions, %d cache hits, %.1f s; journal: %d entries (%d replayed), %.2f s of %.1f s wall time\n",
		s.Rounds, len(s.Vetted), s.Judge.Executions, s.Judge.CacheHits, s.Judge.Seconds, s.Journal.Entries, s.Journal.Replayed, s.Journal.Seconds, s.WallSeconds)
	fmt.Fprintf(stdout, "Report:  %s\nSummary: %s\nHidden state (git): %s\n", out.Report, out.JSON, out.RunDir+"/workshop.git")
	return nil
}
