// Command pyaffected measures `existing_tests: affected` for Python on sympy: for each
// instance of a swe-sympy style corpus, the test files the gold patch's change reaches
// (suites' import graph) against all the base's test files, and with -run, the time the
// regression guard takes to run them on the patched tree in the judge's sandbox.
//
//	go run ./bench/pyaffected -corpus ../shared/data/swe-sympy [-instances a,b] [-run 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/swebench"
)

func main() {
	corpus := flag.String("corpus", "../shared/data/swe-sympy", "the corpus folder")
	instances := flag.String("instances", "", "comma-separated instance ids (default: all)")
	run := flag.Int("run", 0, "run the affected tests of the first `N` instances through the judge")
	sandbox := flag.String("sandbox", "bwrap", "the judge's isolation: bwrap or none")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := measure(ctx, *corpus, *instances, *run, ci.Sandbox(*sandbox)); err != nil {
		fmt.Fprintln(os.Stderr, "pyaffected:", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, dir, ids string, run int, sandbox ci.Sandbox) error {
	var only []string
	if ids != "" {
		only = strings.Split(ids, ",")
	}
	c, err := swebench.LoadCorpus(dir, only...)
	if err != nil {
		return err
	}
	bases, err := swebench.OpenBases(path.Join(dir, "bases.git"))
	if err != nil {
		return err
	}
	contract, _ := languages.Preset("python")
	contract.Prepare, contract.Manifests = "", nil
	contract.ToolchainPath = "/usr/bin/python3"
	contract.Env = map[string]string{"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
	contract.Timeout = 2 * time.Minute // a suite gets ten of them
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, Sandbox: sandbox, Parallel: 1})
	if err != nil {
		return err
	}
	defer judge.Close()
	fmt.Println("instance\tchanged\taffected test files\tall test files\tseconds to list\tguard run")
	for i, inst := range c.Instances {
		base, err := bases.Base(inst)
		if err != nil {
			return err
		}
		gold, err := swebench.ParsePatch("gold", []byte(inst.GoldPatch))
		if err != nil {
			return err
		}
		tree, err := base.Patched(gold)
		if err != nil {
			return fmt.Errorf("%s: the gold patch: %w", inst.ID, err)
		}
		all := 0
		for _, p := range base.Paths() {
			if strings.HasSuffix(p, ".py") && contract.Private(p) && path.Base(p) != "conftest.py" {
				all++
			}
		}
		job := ci.SuiteJob{Coder: "gold", Tree: tree, Tests: base}
		t0 := time.Now()
		job.Only, err = judge.Affected(ctx, job, gold.Targets())
		if err != nil {
			return err
		}
		listed := time.Since(t0)
		guard := "-"
		if i < run {
			t1 := time.Now()
			res, err := judge.RunSuite(ctx, 1, []ci.SuiteJob{job})
			if err != nil {
				return err
			}
			r := res[0]
			failed := 0
			for _, o := range r.Tests {
				if o == ci.Fail {
					failed++
				}
			}
			guard = fmt.Sprintf("%s, %d tests (%d failed) in %.0f s", r.Outcome, len(r.Tests), failed, time.Since(t1).Seconds())
		}
		fmt.Printf("%s\t%s\t%d\t%d\t%.1f\t%s\n", inst.ID, strings.Join(gold.Targets(), " "), len(job.Only), all, listed.Seconds(), guard)
	}
	return nil
}
