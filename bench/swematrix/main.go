// Command swematrix makes the pass matrix of a swe-sympy style corpus with the real
// judge: for each instance, the base, the gold patch and every coder patch against every
// LLM-written test patch, with SWE-bench's label of each coder patch. Each instance's
// matrix is written to -out as <instance_id>.json as soon as it is done; one whose
// inputs have not changed is read back instead of run again, so an interrupted run
// resumes where it stopped.
//
//	go run ./bench/swematrix -corpus ../shared/data/swe-sympy -out data/swe-sympy-matrix [-parallel 2] [-instances a,b] [-max-coders n]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/swebench"
)

func main() {
	corpus := flag.String("corpus", "../shared/data/swe-sympy", "the corpus folder (instances.jsonl, coders/, testers/, bases.git)")
	out := flag.String("out", "data/swe-sympy-matrix", "where the matrices go")
	parallel := flag.Int("parallel", 2, "sessions at once")
	instances := flag.String("instances", "", "comma-separated instance ids (default: all)")
	maxCoders := flag.Int("max-coders", 0, "keep the first n coders of each instance (0: all)")
	coders := flag.String("coders", "", "comma-separated coder names to keep (default: all)")
	sandbox := flag.String("sandbox", "bwrap", "the judge's isolation: bwrap or none")
	python := flag.String("python", "/usr/bin/python3", "the interpreter with pytest and mpmath")
	work := flag.String("work", "", "scratch directory for the judge's trees (default: the system's)")
	force := flag.Bool("force", false, "run instances again even when their matrix is cached")
	verbose := flag.Bool("v", false, "log the judge's sessions")
	flag.Parse()

	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	c, err := swebench.LoadCorpus(*corpus, split(*instances)...)
	if err != nil {
		fail(err)
	}
	r, err := swebench.NewRunner(c, swebench.Options{
		Parallel: *parallel, Sandbox: ci.Sandbox(*sandbox), Python: *python, WorkDir: *work,
		MaxCoders: *maxCoders, Logger: logger, Coders: split(*coders),
		Progress: func(s string) { fmt.Printf("%s %s\n", time.Now().Format("15:04:05"), s) },
	})
	if err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	sum, err := r.All(ctx, *out, *force)
	if sum != nil {
		data, _ := json.MarshalIndent(sum.Totals, "", " ")
		fmt.Printf("%s\n%d instances in %.0f s\n", data, len(sum.Instances), time.Since(start).Seconds())
	}
	if err != nil {
		fail(err)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "swematrix:", err)
	os.Exit(1)
}
