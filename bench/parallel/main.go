// Command parallel measures what running the agents of a phase at once buys (issue 22):
// for the demo population and for a live run against a fake model that waits a fixed
// latency before every reply, it prints the protocol's wall time with every agent of a
// phase at once, the critical path read from the run's journal (phase by phase, the
// slowest agent's turn with the judge's verdicts on it), their ratio, and the wall time
// of the same run with parallel_agents 1 (one agent after the other, the seed's loop).
//
//	go run ./bench/parallel [-latency 200ms] [-coders 5] [-testers 3] [-rounds 4] [-demo=true]
//
// Each population is run three times: a reference run first, untimed (it warms Go's build
// cache), then parallel_agents 1, then every agent at once. The live runs share the verdict
// cache the reference run filled, so the judge's work is a lookup, the same for both, and
// the figures measure the agents; the demo's scripted agents answer at once, so each of its
// runs pays its own judge work and the figures measure the judge shared by the agents. The
// runs must agree on their outcome and vetted tests (the command exits 1 otherwise). All
// agents of a live run share one model client, so one limiter per endpoint.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/session"
)

type config struct {
	latency                 time.Duration
	coders, testers, rounds int
	demo, live              bool
	population              string
	state, buildCache       string
	sandbox                 string
	parallel                int
	keep, verbose           bool
}

func main() {
	var c config
	flag.DurationVar(&c.latency, "latency", 200*time.Millisecond, "the fake model's wait before every reply")
	flag.IntVar(&c.coders, "coders", 5, "coders of the live run")
	flag.IntVar(&c.testers, "testers", 3, "testers of the live run")
	flag.IntVar(&c.rounds, "rounds", 4, "rounds of the live run (max_rounds; at most -coders)")
	flag.BoolVar(&c.demo, "demo", true, "measure the demo population (scripted agents; every run pays its own judge work)")
	flag.BoolVar(&c.live, "live", true, "measure the live run on the fake model (verdicts shared: the agents' time is measured)")
	flag.StringVar(&c.population, "population", "examples/semver", "the demo population")
	flag.StringVar(&c.state, "state", "", "state directory (default: a temporary one, removed at the end)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary state directory")
	flag.StringVar(&c.buildCache, "build-cache", filepath.Join(os.TempDir(), "dixit-bench-gocache"), "Go build cache, kept between invocations")
	flag.StringVar(&c.sandbox, "sandbox", string(ci.SandboxAuto), "judge isolation: auto, bwrap, none")
	flag.IntVar(&c.parallel, "parallel", 0, "jobs the judge runs at once (default: number of cores)")
	flag.BoolVar(&c.verbose, "v", false, "log the runs' details to stderr")
	flag.Parse()
	if c.coders < 3 || c.testers < 1 || c.rounds < 1 || c.rounds > c.coders {
		fmt.Fprintln(os.Stderr, "parallel: need -coders of at least 3, -testers of at least 1, and -rounds between 1 and -coders")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "parallel:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) (err error) {
	state := c.state
	if state == "" {
		if state, err = os.MkdirTemp("", "dixit-bench-parallel-"); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
		if !c.keep {
			defer os.RemoveAll(state)
		}
		// Without bubblewrap, as root, the judge runs commands as lane uids that must be
		// able to reach the runs' directories.
		if err := os.Chmod(state, 0o755); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
	}
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelDebug
	}
	base := session.Options{BuildCache: c.buildCache, Sandbox: ci.Sandbox(c.sandbox), Parallel: c.parallel,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	fmt.Fprintf(stdout, "%-34s %9s %9s %6s %11s %8s  %s\n", "population", "wall", "critical", "ratio", "sequential", "speedup", "outcome")
	if c.demo {
		cmp, err := compare(ctx, trial{name: "demo " + filepath.Base(c.population), dir: filepath.Join(state, "demo")}, base, demoRun(c.population))
		if err != nil {
			return err
		}
		cmp.print(stdout)
	}
	if c.live {
		cmp, err := live(ctx, c, filepath.Join(state, "live"), base)
		if err != nil {
			return err
		}
		cmp.print(stdout)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "wall: the protocol, first solve to its stop; critical: the journal's critical path;")
	fmt.Fprintln(stdout, "ratio: wall / critical (target <= 1.3); sequential: parallel_agents 1; speedup: sequential / wall (target >= 3 for the live run)")
	return nil
}

// live measures the live run on the fake model.
func live(ctx context.Context, c config, dir string, base session.Options) (_ comparison, err error) {
	model := startModel(c.latency)
	defer func() {
		if errs := model.close(); len(errs) > 0 && err == nil {
			err = fmt.Errorf("fake model: %s", strings.Join(errs, "; "))
		}
	}()
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(model.URL(), model.APIKey()))
	if err != nil {
		return comparison{}, fmt.Errorf("model client: %w", err)
	}
	repo := filepath.Join(dir, "calc")
	if err := makeRepo(repo, c); err != nil {
		return comparison{}, err
	}
	spec := filepath.Join(dir, "spec.md")
	if err := os.WriteFile(spec, []byte("Implement `Add(a, b int) int` in package calc: it returns the sum.\n"), 0o644); err != nil {
		return comparison{}, fmt.Errorf("write the spec: %w", err)
	}
	opts := base
	opts.Spec, opts.Repo, opts.Client = spec, repo, client
	name := fmt.Sprintf("live %dx%d, %d rounds, %s/reply", c.coders, c.testers, c.rounds, c.latency)
	return compare(ctx, trial{name: name, dir: dir, shared: true}, opts, liveRun(c, dir))
}
