// Command bot is Dixit's one binary: `demo` runs the protocol offline on the bundled
// example, `run` runs it on a population directory.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

const usage = `usage: bot <command> [flags]

commands:
  demo   run the Dixit protocol offline on the bundled example (scripted agents, real judge)
  run    run the Dixit protocol with live LLM agents on a repository (--spec FILE --repo DIR),
         or with a scripted population (--population DIR)
  vet    judge a patch (an agent's pull request) against what independent coders built from the same
         spec: --patch FILE.diff, DIR or a revision of --repo, with --spec FILE --repo DIR or --population DIR
  decide record a human's answer to a stopped run (drop, replace, wake, budget, continue, accept);
         then "bot run --resume RUN" goes on from there (docs/decisions.md)
  serve  the GitHub App: webhooks in, runs on labelled issues (--config FILE, DIXIT_* variables)
  classify  judge a batch of tests against one coder's tree, verdicts to results.json (what an Actions job runs)
  eval   run the protocols on a benchmark and measure them on hidden tests (docs/eval.md);
         --replay: replay the Dixit rule, CodeT and the hybrid pick on recorded HumanEval output (docs/replay.md)

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
		return runLocal(ctx, "demo", args[1:], os.Getenv, stdout, stderr)
	case "run":
		return runLocal(ctx, "run", args[1:], os.Getenv, stdout, stderr)
	case "vet":
		return runLocal(ctx, "vet", args[1:], os.Getenv, stdout, stderr)
	case "decide":
		return runDecide(args[1:], os.Getenv, stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], os.Getenv, stderr)
	case "classify":
		return runClassify(ctx, args[1:], stdout, stderr)
	case "eval":
		return runEval(ctx, args[1:], os.Getenv, stdout, stderr)
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
