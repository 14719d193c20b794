package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/corpuseval"
	"github.com/dixit-bot/dixit/internal/eval"
	"github.com/dixit-bot/dixit/internal/replay/render"
	"github.com/dixit-bot/dixit/internal/replay/rules/humaneval"
	"github.com/dixit-bot/dixit/internal/replay/rules/rulesreport"
	"github.com/dixit-bot/dixit/internal/swebench"
)

// newEval is `bot eval`: the protocols on a benchmark with hidden tests (docs/eval.md), or
// with --replay the Dixit rule, CodeT and the hybrid pick on a recorded pass matrix:
// HumanEval's by default, MBPP's with --data data/mbpp-replay (docs/replay.md).
func newEval(getenv func(string) string) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval [--bench DIR] [--protocols LIST] | --replay [--data PATH] [--execute [--problems N]] | --corpus DIR",
		Short: "Run the protocols on a benchmark and measure them on hidden tests; --replay: on recorded HumanEval output",
		Long: `Runs each task of the benchmark under each protocol and measures the result on hidden tests
and a reference solution (docs/eval.md). The bundled benchmark's agents are scripted: its
figures prove the plumbing, not the protocols' merit; --live runs them with a real model,
after one short completion checks it (bot doctor); --model or DIXIT_MODEL replaces every
model the tasks' dixit.yml name.

With --replay, replays the Dixit rule, CodeT and the hybrid pick on recorded HumanEval
runs (or, with --data data/mbpp-replay, recorded MBPP runs), with no model
and no execution (docs/replay.md); --replay --execute runs the recorded
solutions against the recorded asserts in the judge's sandbox and compares each cell with
the recorded matrix.

With --corpus, on real instances (sympy issues with real agent patches and real
LLM-written test patches, ../shared/data/swe-sympy's format): every instance's pass matrix
with the real judge (cached in --matrices by its inputs), then the keep rules, bot vet's
gate and the picks on panels drawn from it, beside HumanEval's recorded matrix when it is
there (docs/real-patches.md). With --populations, writes each instance as a scripted
population instead (real patches as coders and testers, more held out for bot vet), for
bot run --population (docs/real-patches.md, "Whole runs").`,
		Example: `  bot eval --protocols dixit,single
  OPENAI_API_KEY=sk-... bot eval --live
  OPENAI_BASE_URL=http://localhost:11434/v1 bot eval --live --model qwen2.5-coder:7b
  bot eval --replay --panels 20 --sizes 3,5,7 --thresholds 0.6,0.7
  bot eval --replay --data data/mbpp-replay
  bot eval --replay --execute --problems 20
  bot eval --corpus ../shared/data/swe-sympy`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd, &f, getenv)
		},
	}
	f.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.bench, "bench", "", "benchmark `DIR` (default: "+eval.BenchDir+" from the repository root)")
	fl.StringVar(&f.protocols, "protocols", strings.Join(eval.Protocols, ","), "the protocols to run, a comma-separated `LIST`")
	fl.BoolVar(&f.fresh, "fresh", false, "discard earlier runs of the same populations and start over")
	fl.BoolVar(&f.live, "live", false, "live LLM agents configured by each task's dixit.yml (OPENAI_API_KEY / OPENAI_BASE_URL), not the scripted ones")
	fl.BoolVar(&f.replay, "replay", false, "replay selection rules on the recorded pass matrix (no LLM, no execution)")
	fl.StringVar(&f.data, "data", "", "--replay: the replay data set's problems.jsonl, or the `PATH` of its folder (default: "+render.DataSet+" from the repository root; data/mbpp-replay is MBPP's)")
	fl.Int64Var(&f.seed, "seed", render.DefaultSeed, "--replay: the `SEED` of the panel draws")
	fl.IntVar(&f.panels, "panels", 20, "--replay: how many `PANELS` per problem for each kind and size")
	fl.StringVar(&f.sizes, "sizes", "3,5,7,9", "--replay: the panel sizes K to replay, a comma-separated `LIST`")
	fl.StringVar(&f.thresholds, "thresholds", "0.5,0.6,0.7,0.8", "--replay: the thresholds to replay, a comma-separated `LIST` from 0.5 to 0.8")
	fl.BoolVar(&f.execute, "execute", false, "--replay: run the recorded solutions against the recorded asserts in the judge's sandbox and compare with the recorded matrix")
	fl.IntVar(&f.problems, "problems", 0, "--replay --execute: only the first `N` problems (default: all)")
	f.models.add(cmd, true)
	fl.StringVar(&f.corpus, "corpus", "", "measure the rules on a corpus of real instances in `DIR` (instances.jsonl, coders/, testers/, bases.git)")
	fl.StringVar(&f.matrices, "matrices", "data/swe-sympy-matrix", "--corpus: where the instances' pass matrices are kept, a `DIR`")
	fl.StringVar(&f.instances, "instances", "", "--corpus: only these instance ids, a comma-separated `LIST`")
	fl.StringVar(&f.populations, "populations", "", "--corpus: write each instance as a scripted population under `DIR` instead of measuring")
	fl.IntVar(&f.coders, "coders", 5, "--populations: coders per population, the first distinct agent patches of the instance")
	fl.IntVar(&f.testers, "testers", 0, "--populations: at most `N` testers, the first distinct test patches (default: all)")
	fl.IntVar(&f.heldOut, "held-out", 2, "--populations: agent patches held out of the run for bot vet")
	fl.StringVar(&f.out, "out", "", "where to write the report, a `DIR` (default: .dixit/eval, .dixit/eval/replay with --replay, .dixit/eval/rules with --corpus)")
	return cmd
}

// evalFlags are bot eval's flags.
type evalFlags struct {
	judgeFlags
	bench, protocols, data, out string
	corpus, matrices, instances string // --corpus
	populations                 string // --corpus --populations
	coders, testers, heldOut    int
	sizes, thresholds           string // --replay
	fresh, live, replay         bool
	execute                     bool // --replay
	seed                        int64
	panels, problems            int
	models                      modelFlags // --live only
}

func runEval(cmd *cobra.Command, f *evalFlags, getenv func(string) string) error {
	ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.check(cmd); err != nil {
		return err
	}
	if f.corpus != "" {
		return runCorpus(cmd, f)
	}
	if f.replay {
		if f.out == "" {
			f.out = filepath.Join(".dixit", "eval", "replay")
		}
		if f.data != "" {
			if info, err := os.Stat(f.data); err == nil && info.IsDir() {
				f.data = dataFile(f.data) // a data set's folder, such as data/mbpp-replay
			}
			if err := existing("data", f.data, aFile); err != nil {
				return fmt.Errorf("eval: %w", err)
			}
		}
		req := render.Request{Data: f.data, Seed: f.seed, Panels: f.panels, Sizes: f.sizes, Thresholds: f.thresholds,
			Out: f.out, Problems: f.problems, Judge: render.Judge{Sandbox: f.sandbox, Parallel: f.parallel,
				Logger: f.logger(stderr)}}
		if f.execute {
			return req.Execute(ctx, stdout)
		}
		return req.Replay(ctx, stdout)
	}
	if f.execute {
		return usagef(cmd, "--execute needs --replay")
	}
	if f.bench != "" {
		if err := existing("bench", f.bench, aDir); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	c := eval.Command{Out: f.out, Options: eval.Options{
		Bench: f.bench, Protocols: splitList(f.protocols), StateDir: f.state, BuildCache: f.buildCache, Fresh: f.fresh,
		Sandbox: ci.Sandbox(f.sandbox), Parallel: f.parallel, Progress: stdout,
	}}
	if f.live {
		start := f.models.start(getenv, f.logger(stderr), nil)
		c.Live = &start
	}
	return c.Run(ctx)
}

// runCorpus is bot eval --corpus.
func runCorpus(cmd *cobra.Command, f *evalFlags) error {
	if f.replay || f.live || f.execute {
		return usagef(cmd, "--corpus measures on its own: leave out --replay, --live and --execute")
	}
	if err := existing("corpus", f.corpus, aDir); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if f.populations != "" {
		if f.coders < 3 || f.heldOut < 0 || f.testers < 0 {
			return usagef(cmd, "--coders takes 3 or more, --testers and --held-out 0 or more (got %d, %d and %d)", f.coders, f.testers, f.heldOut)
		}
		pops := corpuseval.Populations{Corpus: f.corpus, Instances: splitList(f.instances), Matrices: f.matrices,
			Out: f.populations, Coders: f.coders, Testers: f.testers, HeldOut: f.heldOut}
		if err := pops.Write(cmd.OutOrStdout()); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		return nil
	}
	if !cmd.Flags().Changed("sizes") {
		f.sizes = "3,5,7"
	}
	out := f.out
	if out == "" {
		out = filepath.Join(".dixit", "eval", "rules")
	}
	rules := rulesreport.Request{Seed: f.seed, Panels: f.panels, Sizes: f.sizes, Resamples: 1000, Out: out, Derived: humaneval.DerivedFile}
	if f.data != "" || corpuseval.Exists(rulesreport.HumanEvalData) {
		rules.HumanEval = cmp.Or(f.data, rulesreport.HumanEvalData) // the decision needs both corpora
	}
	req := corpuseval.Request{Corpus: f.corpus, Instances: splitList(f.instances), Matrices: f.matrices, Rules: rules,
		Judge:   swebench.Options{Parallel: f.parallel, Sandbox: ci.Sandbox(f.sandbox), Logger: f.logger(cmd.ErrOrStderr())},
		Command: "bot eval " + strings.Join(os.Args[2:], " ")}
	return req.Run(cmd.Context(), cmd.OutOrStdout())
}

// dataFile is a replay data set's problems file in its folder: compressed or not.
func dataFile(dir string) string {
	if gz := filepath.Join(dir, "problems.jsonl.gz"); corpuseval.Exists(gz) {
		return gz
	}
	return filepath.Join(dir, "problems.jsonl")
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
