// Package localrun wires a run on this machine: a population (or, later, live agents), the
// workshop repository, the local judge and the reporters. cmd/bot only parses flags.
package localrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/dixit-bot/dixit/internal/agent/scripted"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
)

// Options configure a local run.
type Options struct {
	Population string // population directory
	StateDir   string // where runs, caches and the workshop live
	BuildCache string // toolchain build cache; StateDir/cache/build when empty
	RunID      string // "" derives one from the population's content
	Fresh      bool   // discard an earlier run with the same id
	Sandbox    ci.Sandbox
	Parallel   int
	Progress   io.Writer // progress lines; nil for none
	Logger     *slog.Logger
	// AfterAppend is passed to the orchestrator (tests cut runs with it).
	AfterAppend func(seq int) error
}

// Outcome is what a finished local run produced.
type Outcome struct {
	Result  *orchestrate.Result
	Summary report.Summary
	RunDir  string
	Report  string // path of report.md
	JSON    string // path of summary.json
}

// Run executes (or resumes) the Dixit protocol on a scripted population.
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	start := time.Now()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	pop, err := scripted.Load(opts.Population)
	if err != nil {
		return nil, err
	}
	if opts.BuildCache == "" {
		opts.BuildCache = filepath.Join(opts.StateDir, "cache", "build")
	}
	if opts.RunID == "" {
		if opts.RunID, err = runID(opts.Population); err != nil {
			return nil, err
		}
	}
	runDir := filepath.Join(opts.StateDir, "runs", opts.RunID)
	release, err := acquireLease(runDir)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", opts.RunID, err)
	}
	defer release()
	if opts.Fresh {
		if err := discard(runDir); err != nil {
			return nil, fmt.Errorf("discard run %s: %w", opts.RunID, err)
		}
	}
	ws, err := gitstate.Open(filepath.Join(runDir, "workshop.git"))
	if err != nil {
		return nil, err
	}
	if err := ws.ClearLocks(); err != nil {
		return nil, err
	}
	journal, err := ws.Journal("refs/dixit/" + opts.RunID + "/journal")
	if err != nil {
		return nil, err
	}
	timed := &timedJournal{Journal: journal}

	local, err := ci.NewLocal(ci.LocalOptions{
		Contract: pop.Settings.Test,
		WorkDir:  filepath.Join(opts.StateDir, "tmp"),
		CacheDir: opts.BuildCache,
		Parallel: opts.Parallel,
		Sandbox:  opts.Sandbox,
		Logger:   opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("start the judge: %w", err)
	}
	defer local.Close()
	judge, err := ci.NewCached(local, pop.Settings.Test, filepath.Join(opts.StateDir, "cache", "verdicts"), opts.Logger)
	if err != nil {
		return nil, err
	}

	deps := orchestrate.Deps{Judge: judge, Store: store{ws}, Journal: timed, AfterAppend: opts.AfterAppend}
	if opts.Progress != nil {
		deps.Reporter = report.NewProgress(opts.Progress)
	}
	for _, s := range pop.Coders {
		deps.Coders = append(deps.Coders, scripted.NewCoder(ws, opts.RunID, s))
	}
	for _, s := range pop.Testers {
		deps.Testers = append(deps.Testers, scripted.NewTester(ws, opts.RunID, s))
	}
	run, err := orchestrate.New(pop.Settings, deps)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", opts.RunID, err)
	}
	res, err := run.Execute(ctx)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w (the journal keeps everything finished so far; the same command resumes)", opts.RunID, err)
	}

	sum := report.NewSummary(opts.RunID, res)
	sum.Population, sum.Agents = opts.Population, "scripted"
	sum.Judge = report.Judge{Stats: judge.Stats(), Sandbox: local.Isolation()}
	sum.Journal.Seconds = timed.seconds.Seconds()
	sum.WallSeconds = time.Since(start).Seconds()
	out := &Outcome{Result: res, Summary: sum, RunDir: runDir}
	if out.JSON, out.Report, err = report.Write(runDir, sum, res); err != nil {
		return nil, err
	}
	return out, nil
}

// discard removes a run directory. It first renames it out of the way, atomically, so
// that a process killed halfway leaves either the whole run or none of it.
func discard(runDir string) error {
	trash := fmt.Sprintf("%s.discarded-%d", runDir, time.Now().UnixNano())
	if err := os.Rename(runDir, trash); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	leftovers, _ := filepath.Glob(runDir + ".discarded-*")
	for _, dir := range leftovers {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return nil
}

// store serves coder trees from the workshop.
type store struct{ ws *gitstate.Workshop }

func (s store) Tree(_ context.Context, commit string) (ci.Tree, error) { return s.ws.Source(commit) }

// timedJournal measures the time spent making effects durable.
type timedJournal struct {
	orchestrate.Journal
	seconds time.Duration
}

func (t *timedJournal) Append(record []byte) error {
	start := time.Now()
	defer func() { t.seconds += time.Since(start) }()
	return t.Journal.Append(record)
}

var unsafeInRef = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// runID names a run after its population and a digest of the population's content, so
// the same command on the same population resumes the same run.
func runID(dir string) (string, error) {
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read population %s: %w", dir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("read population %s: %w", dir, err)
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("population %s: %w", dir, err)
	}
	name := unsafeInRef.ReplaceAllString(filepath.Base(abs), "-")
	return name + "-" + hex.EncodeToString(h.Sum(nil))[:8], nil
}
