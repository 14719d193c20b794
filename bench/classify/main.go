// Command classify measures how fast the local judge classifies one test against five
// coder trees with 20 reruns each (the Dixit rule), against two baselines:
//
//	go run ./bench/classify [-example examples/semver] [-tester ivy/1] [-reruns 20] [-rounds 3]
//
//	(a) local: ci.Local with the Go preset: bubblewrap sandbox (when available), one
//	    build per coder, reruns of the test binary, coders in parallel;
//	(b) naive: `go test -count=1 .` once per rerun per coder, NO sandbox, coders in
//	    parallel (the sandbox would only make it slower);
//	(c) bound: `go test -c` once per coder, then the reruns with plain exec, no sandbox,
//	    coders spread over the cores: what (a) costs without isolation.
//
// All three stop a coder at its first failing run and use warm, separate build caches
// (one untimed warm-up round each). With -example "" five small generated coders are used.
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
	"sort"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

func main() {
	example := flag.String("example", "examples/semver", "example with coders/<name>/<version>/ and testers/; empty: generated coders")
	tester := flag.String("tester", "ivy/1", "the test: testers/<this>/ of the example")
	reruns := flag.Int("reruns", 20, "runs per coder")
	rounds := flag.Int("rounds", 3, "timed rounds per method (the median is reported)")
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
		{"naive", func(ctx context.Context) ([]bool, error) {
			return perCoder(ctx, cpus, coders, test, work, func(dir string) (bool, error) {
				return rerun(reruns, func() (bool, error) {
					return plain(ctx, dir, plainEnv, "go", "test", "-count=1", "-ldflags=-w", ".")
				})
			})
		}},
		{"bound", func(ctx context.Context) ([]bool, error) { // the contract's own commands
			return perCoder(ctx, cpus, coders, test, work, func(dir string) (bool, error) {
				if ok, err := plain(ctx, dir, plainEnv, "/bin/sh", "-c", contract.Build); !ok || err != nil {
					return false, err
				}
				return rerun(reruns, func() (bool, error) {
					return plain(ctx, dir, plainEnv, "/bin/sh", "-c", contract.Run)
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
	times := map[string]time.Duration{}
	for _, m := range methods {
		if _, err := m.run(ctx); err != nil { // warm-up: fills the caches, untimed
			return fmt.Errorf("%s warm-up: %w", m.name, err)
		}
		var walls []time.Duration
		var verdicts []bool
		for r := 0; r < rounds; r++ {
			start := time.Now()
			if verdicts, err = m.run(ctx); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			walls = append(walls, time.Since(start))
		}
		sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
		times[m.name] = walls[len(walls)/2]
		fmt.Printf("%-6s %8.2fs  passing coders %v\n", m.name, times[m.name].Seconds(), passing(coders, verdicts))
	}
	fmt.Printf("naive/local = %.1fx (target >= 10x)\nlocal/bound = %.2fx (target <= 1.3x)\n",
		times["naive"].Seconds()/times["local"].Seconds(), times["local"].Seconds()/times["bound"].Seconds())
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
	var out []string
	for i, ok := range verdicts {
		if ok {
			out = append(out, coders[i].name)
		}
	}
	return out
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
// par coders at a time.
func perCoder(ctx context.Context, par int, coders []*coder, test []byte, work string, fn func(dir string) (bool, error)) ([]bool, error) {
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
	return out, ctx.Err()
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
