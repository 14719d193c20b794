// Command concurrent measures what N live runs cost when one process runs them at once
// (issue 8, "Load"): resident memory, CPU time (the process's own and that of the
// sandboxed commands and tests it starts), goroutines and model requests.
//
//	go run ./bench/concurrent [-n 100] [-concurrency N] [-no-cache] [-sandbox auto] [-parallel 0]
//
// One fake model (internal/llm/llmtest, real HTTP on loopback, streamed replies) plays the
// population of internal/session's live test for every run. Each run works on its own
// copy of a small repository, in its own state directory, through session.RunLive as
// `bot run` does; all share one model client, as a server process would.
//
// A single reference run goes first, untimed: it gives the outcome every concurrent run
// must reach (the command exits 1 otherwise) and warms Go's build cache. By default it
// also fills a verdict cache all the runs share, so the judge's classification work is
// paid once per distinct tree and test and the figures are the marginal cost of a run;
// the coders' own commands (go vet) are never cached and run in the sandbox every time.
// With -no-cache each run keeps its verdicts to itself and pays the whole judge load.
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
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/session"
)

type config struct {
	n, concurrency, parallel int
	noCache, keep, verbose   bool
	sandbox, buildCache      string
	state                    string
	interval, progress       time.Duration
}

func main() {
	var c config
	flag.IntVar(&c.n, "n", 100, "live runs")
	flag.IntVar(&c.concurrency, "concurrency", 0, "runs at once (default: all n)")
	flag.IntVar(&c.parallel, "parallel", 0, "jobs each run's judge runs at once (default: number of cores)")
	flag.BoolVar(&c.noCache, "no-cache", false, "no verdicts shared between runs: each pays its whole judge load")
	flag.StringVar(&c.sandbox, "sandbox", string(ci.SandboxAuto), "judge isolation: auto, bwrap, none")
	flag.StringVar(&c.buildCache, "build-cache", filepath.Join(os.TempDir(), "dixit-bench-gocache"), "Go build cache shared by every run and kept between invocations")
	flag.StringVar(&c.state, "state", "", "state directory (default: a temporary one, removed at the end)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary state directory")
	flag.DurationVar(&c.interval, "interval", 500*time.Millisecond, "sampling interval of RSS and CPU")
	flag.DurationVar(&c.progress, "progress", 5*time.Second, "interval of the progress lines")
	flag.BoolVar(&c.verbose, "v", false, "log the runs' details to stderr")
	flag.Parse()
	if c.n < 1 {
		fmt.Fprintln(os.Stderr, "concurrent: -n must be at least 1")
		os.Exit(2)
	}
	if c.concurrency <= 0 || c.concurrency > c.n {
		c.concurrency = c.n
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "concurrent:", err)
		stop()
		os.Exit(1)
	}
}

// result is one run's end.
type result struct {
	signature string
	isolation string // the judge's: "bwrap", or reduced
	wall      time.Duration
	err       error
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) (err error) {
	state := c.state
	if state == "" {
		if state, err = os.MkdirTemp("", "dixit-bench-concurrent-"); err != nil {
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
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	spec := filepath.Join(state, "spec.md")
	if err := os.WriteFile(spec, []byte("Implement `Add(a, b int) int` in package calc: it returns the sum.\n"), 0o644); err != nil {
		return fmt.Errorf("write the spec: %w", err)
	}

	model := startModel()
	defer func() {
		if errs := model.close(); len(errs) > 0 && err == nil {
			err = fmt.Errorf("fake model: %s", strings.Join(errs, "; "))
		}
	}()
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(model.URL(), model.APIKey()))
	if err != nil {
		return fmt.Errorf("model client: %w", err)
	}
	shared := filepath.Join(state, "shared-cache") // verdicts and probe runs, when shared
	one := func(ctx context.Context, i int) result {
		start := time.Now()
		dir := filepath.Join(state, "runs", fmt.Sprintf("%03d", i))
		repo := filepath.Join(dir, "calc")
		if err := makeRepo(repo); err != nil {
			return result{err: err}
		}
		opts := session.Options{Spec: spec, Repo: repo, Client: client, StateDir: filepath.Join(dir, "state"),
			BuildCache: c.buildCache, Sandbox: ci.Sandbox(c.sandbox), Parallel: c.parallel, Logger: logger}
		if !c.noCache {
			opts.ResultCache = shared
		}
		out, err := session.RunLive(ctx, opts)
		if err != nil {
			return result{err: fmt.Errorf("run %d: %w", i, err), wall: time.Since(start)}
		}
		// The isolation is part of what must match: a judge that fell back from bubblewrap
		// to reduced isolation under load is not the run a lone `bot run` makes.
		sig := signature(out) + "; judge isolation " + out.Summary.Judge.Sandbox
		return result{signature: sig, isolation: out.Summary.Judge.Sandbox, wall: time.Since(start)}
	}

	cacheNote := "shared verdict cache: the judge classifies each distinct tree and test once (in the reference run); coders' go vet is never cached"
	if c.noCache {
		cacheNote = "no shared verdicts (-no-cache): every run pays its whole judge load"
	}
	fmt.Fprintf(stdout, "concurrent: %d live runs, %d at once, one fake model at %s; %d cores, GOMAXPROCS %d\n",
		c.n, c.concurrency, model.URL(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "%s\n", cacheNote)
	fmt.Fprintf(stdout, "state %s, Go build cache %s (shared)\n\n", state, c.buildCache)

	ref := one(ctx, 0)
	if ref.err != nil {
		return fmt.Errorf("reference run: %w", ref.err)
	}
	refRequests := model.served.Load()
	fmt.Fprintf(stdout, "reference run: %.1f s, %d model requests: %s\n", ref.wall.Seconds(), refRequests, ref.signature)

	// The measured phase starts from a collected heap and a fresh high-water mark.
	runtime.GC()
	debug.FreeOSMemory()
	if err := resetPeak(); err != nil {
		logger.Warn("peak RSS is the sampled maximum only", "err", err)
	}
	before, err := readUsage(true)
	if err != nil {
		return err
	}
	requestsBefore := model.served.Load()

	results := make([]result, c.n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, failed := 0, 0
	sem := make(chan struct{}, c.concurrency)
	for i := range c.n {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = result{err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			r := one(ctx, i+1)
			results[i] = r
			mu.Lock()
			done++
			if r.err != nil || r.signature != ref.signature {
				failed++
			}
			mu.Unlock()
		})
	}
	s := &sampler{}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	lastLine := time.Now()
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		s.run(sampleCtx, c.interval, func(u usage) {
			if time.Since(lastLine) < c.progress {
				return
			}
			lastLine = time.Now()
			mu.Lock()
			d, f := done, failed
			mu.Unlock()
			fmt.Fprintf(stderr, "  %5.1f s: %d/%d done, %d failed; RSS %s, CPU %.1f s, %d goroutines, %d model requests\n",
				u.at.Sub(before.at).Seconds(), d, c.n, f, mib(u.rss), (u.cpu() - before.cpu()).Seconds(), u.goroutines,
				model.served.Load()-requestsBefore)
		})
	}()
	wg.Wait()
	s.sample() // the end state, whatever the ticker last saw
	stopSampling()
	<-sampled
	after := s.current()

	// Check and report.
	var errs []error
	var walls []time.Duration
	outcomes := map[string]int{}
	for i, r := range results {
		switch {
		case r.err != nil:
			errs = append(errs, r.err)
			outcomes["error"]++
		case r.signature != ref.signature:
			errs = append(errs, fmt.Errorf("run %d: %s, not the reference's %s", i+1, r.signature, ref.signature))
			outcomes[r.signature]++
		default:
			outcomes[r.signature]++
			walls = append(walls, r.wall)
		}
	}
	// Figures of runs that did different work compare nothing: the runs must agree first.
	if len(errs) > 0 {
		for sig, k := range outcomes {
			fmt.Fprintf(stdout, "  %4d × %s\n", k, sig)
		}
		for _, e := range errs[:min(len(errs), 5)] {
			fmt.Fprintf(stderr, "  %v\n", e)
		}
		return fmt.Errorf("%d of %d runs did not reach the reference's outcome, so no figures; the first: %w", len(errs), c.n, errs[0])
	}
	wall := after.at.Sub(before.at)
	peak := max(s.maxRSS, after.hwm)
	cpu := after.cpu() - before.cpu()
	requests := model.served.Load() - requestsBefore
	n := float64(c.n)
	fmt.Fprintf(stdout, "\nN %d (at most %d at once), wall %.1f s\n", c.n, c.concurrency, wall.Seconds())
	fmt.Fprintf(stdout, "runs: %d completed with the reference's outcome, %d failed\n", len(walls), c.n-len(walls))
	for sig, k := range outcomes {
		fmt.Fprintf(stdout, "  %4d × %s\n", k, sig)
	}
	if len(walls) > 0 {
		slices.Sort(walls)
		fmt.Fprintf(stdout, "run wall time: min %.1f s, median %.1f s, max %.1f s\n",
			walls[0].Seconds(), walls[len(walls)/2].Seconds(), walls[len(walls)-1].Seconds())
	}
	fmt.Fprintf(stdout, "RSS: %s before, peak %s (VmHWM %s, sampled max %s), %s per run above the baseline; Go heap peak %s\n",
		mib(before.rss), mib(peak), mib(after.hwm), mib(s.maxRSS), mib(int64(float64(peak-before.rss)/n)), mib(s.maxHeap))
	fmt.Fprintf(stdout, "CPU: %.1f s (process %.1f s, child processes %.1f s), %.2f s per run; %.2f cores busy on average\n",
		cpu.Seconds(), (after.self - before.self).Seconds(), (after.children - before.children).Seconds(),
		cpu.Seconds()/n, cpu.Seconds()/wall.Seconds())
	if ref.isolation == "bwrap" {
		// Measured: `time bwrap --unshare-pid -- sh -c LOOP` shows no user time, with
		// --as-pid-1 it shows the loop's; the judge uses bwrap's own pid 1.
		fmt.Fprintln(stdout, "  NOT counted: the CPU of processes inside bubblewrap's pid namespace (bwrap does not pass its init's "+
			"children times up to getrusage); -sandbox none counts the same commands")
	}
	fmt.Fprintf(stdout, "model: %d requests served (%.0f per run; the reference run took %d), the fake model's request log holds %s of bodies (in the RSS)\n",
		requests, float64(requests)/n, refRequests, mib(model.retained()))
	fmt.Fprintf(stdout, "goroutines: %d at peak; %d samples every %s", s.maxGoroutines, s.samples, c.interval)
	if s.failures > 0 {
		fmt.Fprintf(stdout, " (%d failed: %v)", s.failures, s.err)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "\n| N | wall s | peak RSS MiB | RSS/run MiB | CPU s | CPU/run s | requests |\n|---|---|---|---|---|---|---|\n")
	mode := ""
	if c.noCache {
		mode = " (no cache)"
	}
	fmt.Fprintf(stdout, "| %d%s | %.1f | %.0f | %.1f | %.1f | %.2f | %d |\n", c.n, mode,
		wall.Seconds(), float64(peak)/(1<<20), float64(peak-before.rss)/n/(1<<20), cpu.Seconds(), cpu.Seconds()/n, requests)
	return nil
}

// signature is what every run must share with the reference: the outcome, the rounds,
// the vetted suite with who failed each test, the coders that pass it at the end, and the
// differential comparison (the caller adds the judge's isolation).
func signature(out *session.Outcome) string {
	res := out.Result
	var vetted []string
	for _, v := range res.Vetted {
		vetted = append(vetted, v.ID+" failed by "+strings.Join(v.FailedBy, ","))
	}
	probe := "no probe"
	if cmp := out.Summary.Comparison; cmp != nil && cmp.Differential != nil {
		probe = fmt.Sprintf("probe by %s on %d inputs, %d disagreements", cmp.ProbeBy, cmp.Differential.Inputs, len(cmp.Differential.Disagreements))
	}
	return fmt.Sprintf("%s after %d rounds; vetted [%s]; passing %v; %s", res.Outcome, res.Rounds, strings.Join(vetted, "; "),
		report.Consensus(out.Summary), probe)
}

// makeRepo writes the small repository of the live test: a stub to implement and its
// dixit.yml, committed.
func makeRepo(dir string) error {
	files := map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { panic(\"todo\") }\n",
		".github/dixit.yml": `coders: 3
testers: 2
reruns: 2
max_rounds: 4
test: {preset: go, timeout: 20s}
agents:
  model: fake-model
  max_steps: 6
  coders:
    - {name: tea, persona: "You like tea."}
    - {name: coffee, persona: "You like coffee."}
    - {name: water, persona: "You like water."}
  testers:
    - {name: sum, direction: "Focus on sums."}
    - {name: zero, direction: "Focus on zero."}
`,
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return fmt.Errorf("worktree %s: %w", dir, err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if _, err := wt.Add(name); err != nil {
			return fmt.Errorf("add %s: %w", name, err)
		}
	}
	// A fixed author and date: every copy has the same HEAD, so the same run id and trees.
	sig := &object.Signature{Name: "bench", Email: "bench@example.com", When: time.Unix(1, 0)}
	if _, err := wt.Commit("stub", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		return fmt.Errorf("commit %s: %w", dir, err)
	}
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
