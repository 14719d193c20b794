package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/agent/scripted"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/statusline"
)

// Options configure an evaluation.
type Options struct {
	Bench      string
	Protocols  []string // nil means every protocol
	StateDir   string   // runs, caches and assembled populations
	BuildCache string   // StateDir/cache/build when empty
	Fresh      bool     // discard earlier runs of the same populations
	Sandbox    ci.Sandbox
	Parallel   int
	Progress   io.Writer // one line per run started and finished, and a status line on a terminal; nil for none
	Logger     *slog.Logger
	// Mutants bounds the mutants of each final implementation that are judged
	// (mutation.DefaultMax when 0); negative turns the mutation measurement off.
	Mutants int
	// Client, when set, runs live LLM agents configured by each task's dixit.yml instead
	// of the scripted agent sets (live.go).
	Client llm.Client
	// Model, with Client, is the model every live agent uses in place of those the tasks'
	// dixit.yml name (bot eval --model); the report names it, and it is part of each run's
	// id. The client itself must send it (Command.Live: llm.Start wraps it).
	Model string
}

// pair is one (task, protocol) to run, with its assembled population.
type pair struct {
	task     Task
	protocol string
	dir      string
	runID    string
	settings config.Settings
	hidden   []orchestrate.Candidate
	live     bool   // live agents (Options.Client)
	spec     string // live: the task's spec
}

// Run runs every chosen protocol on every task that has agents for it, and measures
// each run on the task's hidden tests and reference solution. Every population is
// assembled and checked before the first run starts.
func Run(ctx context.Context, opts Options) (*Report, error) {
	start := time.Now()
	protocols := opts.Protocols
	if len(protocols) == 0 {
		protocols = config.Protocols
	}
	for _, p := range protocols {
		if !slices.Contains(config.Protocols, p) {
			return nil, fmt.Errorf("unknown protocol %q (known: %s)", p, strings.Join(config.Protocols, ", "))
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.BuildCache == "" {
		opts.BuildCache = filepath.Join(opts.StateDir, "cache", "build")
	}
	// One status line for the whole evaluation: each run says on it where it is, and the
	// progress lines go through it.
	var status *statusline.Display
	if opts.Progress != nil {
		status = statusline.New(opts.Progress)
		defer status.Close()
		opts.Progress = status
	}
	bench, err := Load(opts.Bench)
	if err != nil {
		return nil, err
	}
	rep := &Report{Schema: Schema, Bench: opts.Bench, Agents: "scripted", Protocols: protocols, Runs: []Row{}, Skipped: []Skipped{}}
	if opts.Client != nil {
		rep.Agents = "llm"
	}
	var pairs []pair
	for _, t := range bench.Tasks {
		hidden, err := HiddenTests(t)
		if err != nil {
			return nil, err
		}
		for _, p := range protocols {
			if opts.Client != nil {
				pr, why, err := livePair(t, p, opts.Model)
				if err != nil {
					return nil, err
				}
				if why != "" {
					rep.Skipped = append(rep.Skipped, Skipped{Task: t.Name, Protocol: p, Why: why})
					progress(opts.Progress, "eval: task %s, protocol %s: skipped (%s)", t.Name, p, why)
					continue
				}
				pr.hidden = hidden
				pairs = append(pairs, pr)
				continue
			}
			if _, ok := t.Agents[p]; !ok {
				why := fmt.Sprintf("no agents for %s: add %s", p, filepath.Join(t.Dir, "protocols", p))
				if len(t.Agents) == 0 {
					why = "no scripted agents: the task is for bot eval --live"
				}
				rep.Skipped = append(rep.Skipped, Skipped{Task: t.Name, Protocol: p, Why: why})
				progress(opts.Progress, "eval: task %s, protocol %s: skipped (%s)", t.Name, p, why)
				continue
			}
			dir := filepath.Join(opts.StateDir, "eval", "populations", t.Name, p)
			id, err := Prepare(t, p, dir)
			if err != nil {
				return nil, err
			}
			pop, err := scripted.Load(dir)
			if err != nil {
				return nil, fmt.Errorf("task %s, protocol %s: %w", t.Name, p, err)
			}
			pairs = append(pairs, pair{task: t, protocol: p, dir: dir, runID: id, settings: pop.Settings, hidden: hidden})
		}
	}
	for i, pr := range pairs {
		status.Set(statusline.Scope, fmt.Sprintf("eval %d/%d: %s · %s", i+1, len(pairs), pr.task.Name, pr.protocol))
		row, err := runOne(ctx, opts, pr, status)
		if err != nil {
			return nil, fmt.Errorf("task %s, protocol %s: %w", pr.task.Name, pr.protocol, err)
		}
		rep.Runs = append(rep.Runs, row)
	}
	rep.Totals = totals(protocols, rep.Runs)
	rep.WallSeconds = time.Since(start).Seconds()
	return rep, nil
}

// runOne runs one protocol on one task, then measures it, keeping status up to date.
func runOne(ctx context.Context, opts Options, pr pair, status *statusline.Display) (Row, error) {
	progress(opts.Progress, "eval: task %s, protocol %s: running…", pr.task.Name, pr.protocol)
	// Only blind's final check gets the hidden tests, and tells its coder only counts and
	// a generic hint; no other protocol is handed them at all.
	var hidden []orchestrate.Candidate
	if pr.protocol == config.ProtocolBlind {
		hidden = pr.hidden
	}
	lo := session.Options{
		Population: pr.dir, StateDir: opts.StateDir, BuildCache: opts.BuildCache, RunID: pr.runID, Fresh: opts.Fresh,
		Sandbox: opts.Sandbox, Parallel: opts.Parallel, Logger: opts.Logger,
		Protocol: pr.protocol, Hidden: hidden, Host: session.Terminal{Status: status},
	}
	var out *session.Outcome
	var err error
	if pr.live {
		out, err = runLive(ctx, opts, pr, lo)
	} else {
		out, err = session.Run(ctx, lo)
	}
	if err != nil {
		return Row{}, err
	}
	reference, err := newDirTree(pr.task.Reference)
	if err != nil {
		return Row{}, err
	}
	local, err := ci.NewLocal(ci.LocalOptions{
		Contract: pr.settings.Test, WorkDir: filepath.Join(opts.StateDir, "eval", "tmp"), CacheDir: opts.BuildCache,
		Sandbox: opts.Sandbox, Parallel: opts.Parallel, Logger: opts.Logger,
	})
	if err != nil {
		return Row{}, fmt.Errorf("start the judge: %w", err)
	}
	defer local.Close()
	judge, err := ci.NewCached(local, pr.settings.Test, filepath.Join(opts.StateDir, "cache", "verdicts"), opts.Logger)
	if err != nil {
		return Row{}, err
	}
	status.Set(statusline.Work, fmt.Sprintf("measuring on %d hidden tests and the reference", len(pr.hidden)))
	row, err := measure(ctx, out, measurement{hidden: pr.hidden, reference: reference, settings: pr.settings, judge: judge, mutants: opts.Mutants})
	status.Set(statusline.Work, "")
	if err != nil {
		return Row{}, err
	}
	row.Task = pr.task.Name
	if pr.live {
		row.Models = AgentModels(pr.settings.Agents) // the report names the models a live run used
	}
	progress(opts.Progress, "eval: task %s, protocol %s: done: %s, hidden %d/%d, precision %s (%s tests), %.1f s",
		row.Task, row.Protocol, row.Outcome, row.Hidden.Passed, row.Hidden.Total, rate(row.Precision), row.TestsKind, row.WallSeconds)
	return row, nil
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// rate formats a score's rate, "n/a" when it counts no test.
func rate(s Score) string {
	r, ok := s.Rate()
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", r)
}
