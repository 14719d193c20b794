// Command classify measures how fast the local judge classifies one test against five
// coder trees with 20 reruns each (the Dixit rule), against two baselines:
//
//	go run ./bench/classify [-example examples/semver] [-tester ivy/1] [-reruns 20] [-rounds 5]
//
//	(a) local: ci.Local with the Go preset: bubblewrap sandbox (when available), one
//	    build per coder, reruns of the test binary, coders in parallel;
//	(b) naive: `go test -count=1 .` once per rerun per coder, NO sandbox, coders in
//	    parallel (the sandbox would only make it slower);
//	(c) bound: the Go contract's own build and run commands, with the test's place
//	    substituted as the judge does, once per coder and then per rerun, plain exec, no
//	    sandbox, coders spread over the cores: what (a) costs without isolation;
//	(d) unarmed: (a) without the judge's tripwires (test.tripwires: false): what the
//	    checks of its own in every test process cost.
//
// All four stop a coder at its first failing run and use warm, separate build caches
// (one untimed warm-up round each). With -example "" five small generated coders are used.
//
// A ratio compares the same work only when the methods reach the same verdicts: every
// round of every method must pass the same coders, or the command prints where they
// differ, prints no ratio, and exits 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

func main() {
	example := flag.String("example", "examples/semver", "example with coders/<name>/<version>/ and testers/; empty: generated coders")
	tester := flag.String("tester", "ivy/1", "the test: testers/<this>/ of the example")
	reruns := flag.Int("reruns", 20, "runs per coder")
	rounds := flag.Int("rounds", 5, "timed rounds per method (the median is reported)")
	cacheDir := flag.String("cache", filepath.Join(os.TempDir(), "dixit-bench-cache"), "build caches, kept between invocations")
	flag.Parse()
	if err := run(*example, *tester, *reruns, *rounds, *cacheDir); err != nil {
		fmt.Fprintln(os.Stderr, "classify:", err)
		os.Exit(1)
	}
}

// method classifies the test against every coder and returns pass/fail per coder.
type method struct {
	name string
	run  func(ctx context.Context) ([]bool, error)
}

func run(example, tester string, reruns, rounds int, cacheDir string) error {
	ctx := context.Background()
	work, err := os.MkdirTemp("", "dixit-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	coders, test, err := population(example, tester, work)
	if err != nil {
		return err
	}
	contract, _ := languages.Preset("go")
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, CacheDir: filepath.Join(cacheDir, "judge"),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer judge.Close()
	// The same judge without its tripwires (docs/judge.md): what the checks of its own in
	// every test process cost.
	bare := contract
	bare.SkipTripwires = true
	unarmed, err := ci.NewLocal(ci.LocalOptions{Contract: bare, CacheDir: filepath.Join(cacheDir, "judge"),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer unarmed.Close()
	var jobs []ci.Job
	for _, c := range coders {
		jobs = append(jobs, ci.Job{Coder: c.name, Tree: c, Test: ci.Test{ID: "bench", Content: test}})
	}
	plainCache := filepath.Join(cacheDir, "plain", "go-build")
	if err := os.MkdirAll(plainCache, 0o755); err != nil {
		return err
	}
	// The judge's go command works in the sandbox's tmpfs /tmp; give the baselines a
	// tmpfs too where there is one, or they pay for the disk (linking doubles in time).
	plainTmp, err := os.MkdirTemp(tmpfs(), "dixit-bench-tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(plainTmp)
	plainEnv := []string{"GOCACHE=" + plainCache, "TMPDIR=" + plainTmp}
	// The contract's commands name the test's place as the judge substitutes it; the
	// baselines put the test where perCoder writes it.
	build, err := expand(contract.Build, benchTest)
	if err != nil {
		return err
	}
	runCmd, err := expand(contract.Run, benchTest)
	if err != nil {
		return err
	}
	cpus := runtime.NumCPU()
	methods := []method{
		{"local", func(ctx context.Context) ([]bool, error) {
			vs, err := judge.Run(ctx, reruns, jobs)
			out := make([]bool, len(vs))
			for i, v := range vs {
				out[i] = v.Passed()
			}
			return out, err
		}},
		{"unarmed", func(ctx context.Context) ([]bool, error) {
			vs, err := unarmed.Run(ctx, reruns, jobs)
			out := make([]bool, len(vs))
			for i, v := range vs {
				out[i] = v.Passed()
			}
			return out, err
		}},
		{"naive", func(ctx context.Context) ([]bool, error) {
			return perCoder(cpus, coders, test, work, func(dir string) (bool, error) {
				return rerun(reruns, func() (bool, error) {
					return plain(ctx, dir, plainEnv, "go", "test", "-count=1", "-ldflags=-w", ".")
				})
			})
		}},
		{"bound", func(ctx context.Context) ([]bool, error) { // the contract's own commands
			return perCoder(cpus, coders, test, work, func(dir string) (bool, error) {
				if ok, err := plain(ctx, dir, plainEnv, "/bin/sh", "-c", build); !ok || err != nil {
					return false, err
				}
				return rerun(reruns, func() (bool, error) {
					return plain(ctx, dir, plainEnv, "/bin/sh", "-c", runCmd)
				})
			})
		}},
	}
	source := fmt.Sprintf("%s, test %s", example, tester)
	if example == "" {
		source = "generated coders"
	}
	fmt.Printf("%d coders (%s), %d reruns, %d CPUs, %d round(s); judge sandbox: %s\n",
		len(coders), source, reruns, cpus, rounds, sandboxName())
	// The rounds take turns across the methods, so a change in the machine's load
	// between the first method's rounds and the last's falls on all of them alike.
	var results []verdicts
	for _, m := range methods {
		warm, err := m.run(ctx) // warm-up: fills the caches, untimed
		if err != nil {
			return fmt.Errorf("%s warm-up: %w", m.name, err)
		}
		results = append(results, verdicts{m.name + " warm-up", passing(coders, warm)})
	}
	walls := map[string][]time.Duration{}
	for r := 0; r < rounds; r++ {
		for _, m := range methods {
			start := time.Now()
			got, err := m.run(ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			walls[m.name] = append(walls[m.name], time.Since(start))
			results = append(results, verdicts{fmt.Sprintf("%s round %d", m.name, r+1), passing(coders, got)})
		}
	}
	times := map[string]time.Duration{}
	for _, m := range methods {
		w := walls[m.name]
		slices.Sort(w)
		times[m.name] = w[len(w)/2]
		fmt.Printf("%-7s %8.2fs  (median of %d rounds)\n", m.name, times[m.name].Seconds(), rounds)
	}
	if err := agree(results); err != nil {
		return err
	}
	fmt.Printf("the methods agree: every round of each passes %v\n", results[0].passing)
	fmt.Printf("naive/local = %.1fx (target >= 10x)\nlocal/bound = %.2fx (target <= 1.3x)\nlocal/unarmed = %.2fx (the tripwires' cost; target < 1.10x)\n",
		times["naive"].Seconds()/times["local"].Seconds(), times["local"].Seconds()/times["bound"].Seconds(),
		times["local"].Seconds()/times["unarmed"].Seconds())
	s := judge.Stats()
	fmt.Printf("judge stats: %d executions, %d runs, %.1fs inside Run\n", s.Executions, s.Runs, s.Seconds)
	return nil
}

// tmpfs is a memory-backed scratch directory when the host has one.
func tmpfs() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

func sandboxName() string {
	if _, err := os.Stat("/usr/bin/bwrap"); err == nil {
		return "bwrap (auto)"
	}
	return "auto (see warnings above)"
}

func passing(coders []*coder, verdicts []bool) []string {
	out := []string{}
	for i, ok := range verdicts {
		if ok {
			out = append(out, coders[i].name)
		}
	}
	return out
}

// verdicts are the coders one round of one method passed.
type verdicts struct {
	round   string
	passing []string
}

// agree says where rounds passed other coders than the first did: timings of different
// work compare nothing.
func agree(results []verdicts) error {
	var diffs []string
	for _, r := range results[1:] {
		if !slices.Equal(r.passing, results[0].passing) {
			diffs = append(diffs, fmt.Sprintf("  %s passes %v", r.round, r.passing))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("the methods disagree, so no ratio: %s passes %v, but\n%s", results[0].round, results[0].passing, strings.Join(diffs, "\n"))
}

// benchTest is where the baselines put the test: writeWithTest's file, at the root.
const benchTest = "dixit_bench_test.go"

// expand substitutes the test's place into a contract command, as the judge does for a
// test at path, and refuses a placeholder it does not know rather than run it literally.
func expand(cmd, path string) (string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	out := strings.NewReplacer("{id}", "bench", "{path}", path, "{dir}", dir,
		"{name}", strings.TrimSuffix(base, filepath.Ext(base))).Replace(cmd)
	if i := strings.Index(out, "{"); i >= 0 && strings.Contains(out[i:], "}") {
		return "", fmt.Errorf("contract command %q: a placeholder the benchmark does not substitute", cmd)
	}
	return out, nil
}

// rerun calls once up to n times and stops at the first failure, like the judge.
func rerun(n int, once func() (bool, error)) (bool, error) {
	for i := 0; i < n; i++ {
		if ok, err := once(); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// perCoder lays out each coder's tree plus the test afresh and runs fn on it, at most
// par coders at a time; fn carries the context.
func perCoder(par int, coders []*coder, test []byte, work string, fn func(dir string) (bool, error)) ([]bool, error) {
	out := make([]bool, len(coders))
	errs := make([]error, len(coders))
	sem := make(chan struct{}, par)
	done := make(chan struct{})
	for i, c := range coders {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			// A fixed path per coder, like the judge's /sandbox/src: build cache keys
			// include the source directory, so a fresh temp dir would recompile.
			dir := filepath.Join(work, "plain-"+c.name)
			err := os.RemoveAll(dir)
			if err == nil {
				err = c.writeWithTest(dir, test)
			}
			if err == nil {
				out[i], err = fn(dir)
			}
			errs[i] = err
		}()
	}
	for range coders {
		<-done
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// plain runs a command in dir with the same build settings as the judge; a non-zero
// exit is a failing verdict, not an error.
func plain(ctx context.Context, dir string, env []string, name string, args ...string) (bool, error) {
	cmd := execCommand(ctx, dir, name, args...)
	cmd.Env = append(append(os.Environ(), env...), "CGO_ENABLED=0", "GOPROXY=off", "GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local", "GOTELEMETRY=off")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return err == nil, nil
}
