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
)

// runClassify runs `bot classify`: a batch of tests against one coder's tree, verdicts to
// results.json (docs/actions.md). It exits non-zero only when no verdicts could be given
// (bad input or a judge failure); failing tests are verdicts, not errors.
func runClassify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("classify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	treeDir := fs.String("tree", "", "the coder's tree: a directory (its .git, if any, is skipped)")
	repo := fs.String("repo", "", "or a git repository on disk, with --ref")
	ref := fs.String("ref", "HEAD", "with --repo: the commit, branch, tag or ref to judge")
	tests := fs.String("tests", "", "batch.json (schema dixit.batch/v1), or a directory with one test file per test")
	contractFile := fs.String("contract", "", "the contract: a dixit.yml `test:` section as JSON or YAML (overrides the batch's)")
	configFile := fs.String("config", "", "or a dixit.yml whose test: section and reruns are used")
	reruns := fs.Int("reruns", 0, "runs per test (default: the batch's, else dixit.yml's, else 20)")
	coder := fs.String("coder", "", "the coder's name, echoed into results.json")
	runID := fs.String("run", "", "the Dixit run id (default: the batch's)")
	batchID := fs.String("batch", "", "the batch id (default: the batch's; required with a directory of tests)")
	out := fs.String("out", "results.json", "where to write results.json")
	sandbox := fs.String("sandbox", "auto", "judge isolation: auto (bubblewrap when it works), bwrap (or fail), none")
	parallel := fs.Int("parallel", 0, "tests the judge runs at once (default: number of cores)")
	cacheDir := fs.String("cache", "", "toolchain build cache for the judge (default: a fresh one)")
	verbose := fs.Bool("v", false, "log details to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("classify: unexpected argument %q", fs.Arg(0))
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	opts, err := classifyInput(*treeDir, *repo, *ref, *tests, *contractFile, *configFile, *reruns, *runID, *batchID)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	opts.Coder, opts.Sandbox, opts.Parallel, opts.CacheDir, opts.Logger = *coder, ci.Sandbox(*sandbox), *parallel, *cacheDir, logger
	res, judgeErr := classify.Classify(ctx, opts)
	data, err := res.Marshal()
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	if judgeErr != nil {
		return fmt.Errorf("classify: %w (written to %s)", judgeErr, *out)
	}
	passed := 0
	for _, t := range res.Tests {
		if t.Outcome == ci.Pass {
			passed++
		}
	}
	fmt.Fprintf(stdout, "coder %s, tree %s: %d of %d tests pass (%d reruns, %s, %.1f s); verdicts in %s\n",
		res.Coder, res.Tree, passed, len(res.Tests), res.Reruns, res.Isolation, res.Seconds, *out)
	for _, t := range res.Tests {
		switch t.Outcome {
		case ci.Pass, ci.BuildFailed:
			fmt.Fprintf(stdout, "  %-24s %s\n", t.ID, t.Outcome)
		default:
			fmt.Fprintf(stdout, "  %-24s %s at run %d\n", t.ID, t.Outcome, t.FailedRun)
		}
	}
	return nil
}

// classifyInput reads the tree, the tests, the contract and the reruns from the flags.
func classifyInput(treeDir, repo, ref, tests, contractFile, configFile string, reruns int, runID, batchID string) (classify.Options, error) {
	var o classify.Options
	var err error
	switch {
	case treeDir != "" && repo != "":
		return o, errors.New("give --tree DIR or --repo DIR [--ref REF], not both")
	case treeDir != "":
		o.Tree, err = classify.DirTree(treeDir)
	case repo != "":
		o.Tree, err = classify.RepoTree(repo, ref)
	default:
		return o, errors.New("give the coder's tree: --tree DIR or --repo DIR [--ref REF]")
	}
	if err != nil {
		return o, err
	}
	if tests == "" {
		return o, errors.New("give the tests: --tests batch.json or --tests DIR")
	}
	if contractFile != "" && configFile != "" {
		return o, errors.New("give --contract or --config, not both")
	}
	var batch classify.Batch
	if fi, err := os.Stat(tests); err != nil {
		return o, err
	} else if fi.IsDir() {
		if o.Tests, err = classify.DirTests(tests); err != nil {
			return o, err
		}
	} else if batch, o.Tests, err = classify.ReadBatch(tests); err != nil {
		return o, err
	}
	o.Run, o.Batch, o.Reruns = batch.Run, batch.Batch, batch.Reruns
	if runID != "" {
		if o.Run != "" && o.Run != runID {
			return o, fmt.Errorf("--run %s, but the batch is for run %s", runID, o.Run)
		}
		o.Run = runID
	}
	if batchID != "" {
		if o.Batch != "" && o.Batch != batchID {
			return o, fmt.Errorf("--batch %s, but the batch file is %s", batchID, o.Batch)
		}
		o.Batch = batchID
	}
	configReruns := 0
	switch {
	case contractFile != "":
		data, err := os.ReadFile(contractFile)
		if err != nil {
			return o, err
		}
		if o.Contract, err = classify.ContractFromJSON(data); err != nil {
			return o, fmt.Errorf("%s: %w", contractFile, err)
		}
	case configFile != "":
		if o.Contract, configReruns, err = classify.ContractFromConfig(configFile); err != nil {
			return o, err
		}
	case len(batch.Contract) > 0:
		if o.Contract, err = classify.ContractFromJSON(batch.Contract); err != nil {
			return o, fmt.Errorf("%s: %w", tests, err)
		}
	default:
		return o, errors.New("no contract: the batch has none; give --contract FILE or --config dixit.yml")
	}
	switch {
	case reruns > 0:
		o.Reruns = reruns
	case o.Reruns > 0:
	case configReruns > 0:
		o.Reruns = configReruns
	default:
		o.Reruns = 20
	}
	return o, nil
}
