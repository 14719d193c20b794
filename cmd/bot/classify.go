package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/classify"
)

// newClassify is `bot classify`: a batch of tests against one coder's tree, verdicts to
// results.json (docs/actions.md). It fails only when no verdicts could be given (bad input
// or a judge failure); failing tests are verdicts, not errors.
func newClassify() *cobra.Command {
	var in classifyFlags
	cmd := &cobra.Command{
		Use:   "classify (--tree DIR | --repo DIR [--ref REF]) --tests FILE|DIR",
		Short: "Judge a batch of tests against one coder's tree, verdicts to results.json (what an Actions job runs)",
		Long: `Builds the tree with each test and runs it --reruns times in the sandbox, as the Dixit
judge does, and writes one verdict per test to results.json (docs/actions.md). Failing tests
are verdicts, not errors: the command fails only when it could give no verdicts.`,
		Example: `  bot classify --tree coder --tests batch/batch.json --coder basil --out results/results.json
  bot classify --repo .dixit/runs/RUN/workshop.git --ref refs/dixit/RUN/coders/basil --tests tests/ --config dixit.yml --batch b1`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClassify(cmd, &in)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in.Tree, "tree", "", "the coder's tree: a `DIR` (its .git, if any, is skipped)")
	fl.StringVar(&in.Repo, "repo", "", "or a git repository `DIR` on disk, with --ref")
	fl.StringVar(&in.Ref, "ref", "HEAD", "with --repo: the commit, branch, tag or `REF` to judge")
	fl.StringVar(&in.Tests, "tests", "", "the tests: a batch.json `FILE` (schema dixit.batch/v1), or a directory with one test file per test")
	fl.StringVar(&in.Contract, "contract", "", "the contract: a `FILE` holding a dixit.yml test: section as JSON or YAML (overrides the batch's)")
	fl.StringVar(&in.Config, "config", "", "or a dixit.yml `FILE` whose test: section and reruns are used")
	fl.IntVar(&in.Reruns, "reruns", 0, "how many `RUNS` per test (default: the batch's, else dixit.yml's, else 20)")
	fl.StringVar(&in.coder, "coder", "", "the coder's `NAME`, echoed into results.json")
	fl.StringVar(&in.Run, "run", "", "the Dixit run `ID` (default: the batch's)")
	fl.StringVar(&in.Batch, "batch", "", "the batch `ID` (default: the batch's; required with a directory of tests)")
	fl.StringVar(&in.out, "out", "results.json", "the `FILE` to write results.json to")
	fl.StringVar(&in.judge.sandbox, "sandbox", "auto", "judge isolation, a `MODE`: auto (bubblewrap when it works), bwrap (or fail), none")
	fl.IntVar(&in.judge.parallel, "parallel", 0, "how many `TESTS` the judge runs at once (default: number of cores)")
	fl.StringVar(&in.cache, "cache", "", "`DIR` of the judge's toolchain build cache (default: a fresh one)")
	fl.BoolVarP(&in.judge.verbose, "verbose", "v", false, "log details to stderr")
	return cmd
}

// classifyFlags are bot classify's flags: the request's, the judge's, and where the
// results go.
type classifyFlags struct {
	classify.Request
	judge             judgeFlags // sandbox, parallel, verbose; no state
	coder, out, cache string
}

func runClassify(cmd *cobra.Command, in *classifyFlags) error {
	ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := in.judge.check(cmd); err != nil {
		return err
	}
	for _, c := range []struct{ flag, path string }{{"tree", in.Tree}, {"repo", in.Repo}, {"tests", in.Tests}, {"contract", in.Contract}, {"config", in.Config}} {
		if c.path == "" {
			continue
		}
		if err := existing(c.flag, c.path, fileOrDir); err != nil {
			return fmt.Errorf("classify: %w", err)
		}
	}
	opts, err := in.Options()
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	opts.Coder, opts.Sandbox, opts.Parallel, opts.CacheDir, opts.Logger = in.coder, ci.Sandbox(in.judge.sandbox), in.judge.parallel, in.cache, in.judge.logger(stderr)
	res, judgeErr := classify.Classify(ctx, opts)
	if err := res.Write(in.out); err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	if judgeErr != nil {
		return fmt.Errorf("classify: %w (written to %s)", judgeErr, in.out)
	}
	res.Print(stdout, in.out)
	return nil
}
