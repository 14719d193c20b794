// Package session drives one run of a protocol: it opens the run (its lease, workshop
// repository, journal and judge), casts its agents (a scripted population, or live ones
// through a model client), runs the protocol to its stop, compares the implementations and
// writes the report. Where it is hosted (a terminal, the App, an evaluation) is its Host.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/statusline"
	"github.com/dixit-bot/dixit/internal/vet"
)

// Options configure a local run.
type Options struct {
	Population string // population directory (scripted run)
	Spec       string // spec file (live run)
	Repo       string // repository whose HEAD is the base revision (live run)
	Config     string // dixit.yml for a live run; default: .github/dixit.yml at HEAD
	Client     cast.Client
	StateDir   string // where runs, caches and the workshop live
	BuildCache string // toolchain build cache; StateDir/cache/build when empty
	// ResultCache holds verdicts and probe runs, keyed by what produced them, so runs and
	// servers can share it; StateDir/cache when empty.
	ResultCache string
	RunID       string // "" derives one from the population's content
	Fresh       bool   // discard an earlier run with the same id
	Sandbox     ci.Sandbox
	Parallel    int
	Logger      *slog.Logger
	// Host is where the run is hosted: its judge, its workshop's mirror, its reporters
	// and its display. Nil is a Terminal that shows nothing.
	Host Host
	// AfterAppend is passed to the orchestrator (tests cut runs with it).
	AfterAppend func(seq int) error
	// Protocol, when set, overrides the protocol dixit.yml names (bot eval runs the same
	// task under each protocol; the App's dixit:<protocol> labels).
	Protocol string
	// Hidden are tests no agent sees (bot eval's reference tests); protocol blind runs
	// them as its final check.
	Hidden []orchestrate.Candidate
	// Patch, when set, is a patch under review (an agent's pull request): once the run is
	// over it is judged on every test the run proposed, and the summary gets its verdict.
	// No agent ever sees it.
	Patch ci.Tree
}

// Outcome is what a finished local run produced.
type Outcome struct {
	Result  *orchestrate.Result
	Summary runfile.Summary
	RunDir  string
	Report  string // path of report.md
	HTML    string // path of report.html
	JSON    string // path of summary.json
	// Base is the base revision's commit in the repository it came from (RunInput), the
	// one the run pinned when it started: what an escalation pull request builds on.
	Base string
}

// Run executes (or resumes) the Dixit protocol on a scripted population.
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	pop, err := cast.Load(opts.Population)
	if err != nil {
		return nil, err
	}
	if opts.RunID == "" {
		if opts.RunID, err = runID(opts.Population); err != nil {
			return nil, err
		}
	}
	if opts.Protocol != "" {
		pop.Settings.Protocol = opts.Protocol
	}
	s, err := open(ctx, opts, pop.Settings.Test)
	if err != nil {
		return nil, err
	}
	defer s.close()
	c := cast.Scripted(pop, cast.Stage{Workshop: s.ws, Run: opts.RunID, RunDir: s.runDir, Logger: s.opts.Logger})
	base, err := s.ws.ImportDir(filepath.Join(pop.Dir, "base"))
	if err != nil {
		return nil, fmt.Errorf("population %s: base/: %w", opts.Population, err)
	}
	s.cast(c, base, pop.Settings)
	return s.execute(ctx, pop.Settings, c, func(sum *runfile.Summary) {
		sum.Population, sum.Agents = opts.Population, cast.KindScripted
	})
}

// session is an open run: its lease, workshop, journal and judge.
type session struct {
	opts    Options
	start   time.Time
	runDir  string
	release func()
	ws      *gitstate.Workshop
	journal *timedJournal
	local   *ci.Local
	guard   *guard // the repository's own tests, when they guard anything
	// ownAsReached: the base's own tests run as changes reach them, not in the
	// preflight (asReached).
	ownAsReached bool
	inner        ci.Judge // what the cache asks: the local judge, or Options.Judge's
	judge        *ci.Cached
	// base is the base revision's tree or commit, and probe writes the probe for
	// differential testing: what compare needs once the protocol has ended.
	base     string
	probe    cast.Prober
	contract ci.Contract
	// pickRule and gate are the settings' pick and vet gate (pick.Named, vet.Gate).
	pickRule string
	gate     vet.Gate
	// out shows progress lines, and status what runs now (progress.go); ownStatus when
	// the run made it.
	out       io.Writer
	status    *statusline.Display
	ownStatus bool
	// recorded: this invocation's figures are in the run's invocations file.
	recorded bool
}

func open(ctx context.Context, opts Options, contract ci.Contract) (_ *session, err error) {
	s := &session{opts: opts, start: time.Now(), runDir: filepath.Join(opts.StateDir, "runs", opts.RunID), contract: contract}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.opts.Host == nil {
		s.opts.Host = Terminal{}
	}
	if s.opts.BuildCache == "" {
		s.opts.BuildCache = filepath.Join(opts.StateDir, "cache", "build")
	}
	if s.opts.ResultCache == "" {
		s.opts.ResultCache = filepath.Join(opts.StateDir, "cache")
	}
	if s.release, err = acquireLease(s.runDir); err != nil {
		return nil, fmt.Errorf("run %s: %w", opts.RunID, err)
	}
	s.startStatus(ctx)
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if opts.Fresh {
		if err := discard(s.runDir); err != nil {
			return nil, fmt.Errorf("discard run %s: %w", opts.RunID, err)
		}
	}
	if s.ws, err = gitstate.Open(filepath.Join(s.runDir, "workshop.git")); err != nil {
		return nil, err
	}
	if err := saveInputs(s.runDir, opts); err != nil {
		return nil, err
	}
	if err := s.ws.ClearLocks(); err != nil {
		return nil, err
	}
	if err := s.opts.Host.Attach(ctx, s.ws); err != nil {
		return nil, fmt.Errorf("run %s: %w", opts.RunID, err)
	}
	journal, err := s.ws.Journal("refs/dixit/" + opts.RunID + "/journal")
	if err != nil {
		return nil, err
	}
	s.journal = &timedJournal{Journal: journal}
	// Scratch space is per run: holding the lease, anything left there is a killed
	// process's and can go.
	scratch := filepath.Join(s.runDir, "tmp")
	if err := os.RemoveAll(scratch); err != nil {
		return nil, fmt.Errorf("clear scratch space: %w", err)
	}
	s.local, err = ci.NewLocal(ci.LocalOptions{
		Contract: contract,
		WorkDir:  scratch,
		CacheDir: s.opts.BuildCache,
		Parallel: opts.Parallel,
		Sandbox:  opts.Sandbox,
		Private:  []string{opts.StateDir, s.opts.ResultCache}, // closed to the jobs' uids without bwrap
		Logger:   s.opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("start the judge: %w", err)
	}
	if s.inner, err = s.opts.Host.Judge(ctx, contract); err != nil {
		return nil, fmt.Errorf("start the judge: %w", err)
	}
	if s.inner == nil {
		s.inner = s.local
	}
	// The guard sits under the cache: a batch it refuses is never cached.
	if s.judge, err = ci.NewCached(&envGuard{s: s, inner: s.inner}, contract, filepath.Join(s.opts.ResultCache, "verdicts"), s.opts.Logger); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) close() {
	s.recordCut()
	s.stopStatus()
	if s.local != nil {
		s.local.Close()
	}
	s.release()
}

// execute runs the protocol with the given agents and writes the report and summary.
func (s *session) execute(ctx context.Context, cfg config.Settings, c *cast.Cast, describe func(*runfile.Summary)) (*Outcome, error) {
	reporters := s.opts.Host.Reporters(ctx)
	if s.out != nil || s.status != nil {
		reporters = append(reporters, report.NewProgress(s.out, s.status))
	}
	var human []orchestrate.Candidate
	if cfg.Protocol == config.ProtocolTDG { // the only protocol that conditions on them
		var err error
		if human, err = s.humanTests(cfg.Test); err != nil {
			return nil, err
		}
	}
	s.ownAsReached = asReached(cfg)
	pre, err := s.preflight(ctx)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", s.opts.RunID, err)
	}
	if pre != nil && !pre.Passed {
		return s.stopForEnvironment(ctx, cfg, pre, fanOut(reporters), describe)
	}
	existing, err := s.existingTests(ctx, pre, cfg)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w (the same command retries)", s.opts.RunID, err)
	}
	s.guard = s.newGuard(existing)
	deps := orchestrate.Deps{Coders: c.Coders, Testers: c.Testers, Advisors: c.Advisors, HumanTests: human, Hidden: s.opts.Hidden, Judge: s.watched(s.judge), Store: store{s.ws}, Journal: s.journal,
		AfterAppend: s.opts.AfterAppend, Reporter: fanOut(reporters),
		Decisions: func() ([]orchestrate.Decision, error) { return readDecisions(s.runDir) }, NewCoder: c.NewCoder}
	if s.guard != nil {
		deps.Guard = s.guard // never a nil *guard in the interface
	}
	run, err := orchestrate.New(cfg, deps)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", s.opts.RunID, err)
	}
	res, err := run.Execute(ctx)
	if env := (*environmentError)(nil); errors.As(err, &env) {
		return s.stopForEnvironment(ctx, cfg, env.check, fanOut(reporters), describe)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w (the journal keeps everything finished so far; the same command resumes)", s.opts.RunID, err)
	}
	sum := report.NewSummary(s.opts.RunID, res)
	sum.Preflight, sum.Existing = pre, existing
	if existing != nil {
		existing.Retired = res.Retired
	}
	describe(&sum)
	// The report's commands name this state dir; its code blocks take the tests' language.
	sum.StateDir, sum.TestPath = s.opts.StateDir, cfg.Test.Path
	cmp, err := s.compare(ctx, &sum, res, cfg.Reruns)
	if err != nil {
		return nil, fmt.Errorf("run %s: compare the implementations: %w (the same command retries)", s.opts.RunID, err)
	}
	sum.Comparison = cmp
	if err := s.checkBase(ctx, &sum, res, cfg.Reruns); err != nil {
		return nil, fmt.Errorf("run %s: %w (the same command retries)", s.opts.RunID, err)
	}
	if s.opts.Patch != nil {
		if sum.Vet, err = s.vetPatch(ctx, &sum, res, cfg.Reruns); err != nil {
			return nil, fmt.Errorf("run %s: judge the patch: %w (the same command retries)", s.opts.RunID, err)
		}
	}
	// Accounted after the comparison, whose judge work (dual agreement) counts too.
	return s.write(sum, res)
}

// cast notes what the comparison needs once the protocol has ended: the base revision,
// and where the probe comes from (the population's file, or a tester's).
func (s *session) cast(c *cast.Cast, base string, cfg config.Settings) {
	s.base, s.probe = base, c.Prober(cfg.Test)
	s.pickRule, s.gate = cfg.Pick, vet.Gate{}
	if cfg.VetGate == config.VetGateThreshold {
		s.gate.Share = cfg.IdealThreshold
	}
}

// humanTests are the tests already in the base revision (the files the contract marks
// as a coder's own): the tests people wrote, which tdg conditions on.
func (s *session) humanTests(contract ci.Contract) ([]orchestrate.Candidate, error) {
	if s.base == "" {
		return nil, nil
	}
	files, err := s.ws.Files(s.base)
	if err != nil {
		return nil, fmt.Errorf("read the base revision's tests: %w", err)
	}
	var out []orchestrate.Candidate
	for _, f := range files {
		if contract.Private(f.Path) {
			out = append(out, orchestrate.Candidate{ID: fmt.Sprintf("human%d", len(out)+1), Tester: "human", Content: f.Content})
		}
	}
	return out, nil
}

// store serves coder trees from the workshop.
type store struct{ ws *gitstate.Workshop }

func (s store) Tree(_ context.Context, commit string) (ci.Tree, error) { return s.ws.Source(commit) }

func (s store) Files(_ context.Context, commit string) ([]orchestrate.File, error) {
	files, err := s.ws.Files(commit)
	if err != nil {
		return nil, err
	}
	out := make([]orchestrate.File, len(files))
	for i, f := range files {
		out[i] = orchestrate.File{Path: f.Path, Content: f.Content}
	}
	return out, nil
}

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

// fanOut tells every reporter every event.
type fanOut []orchestrate.Reporter

func (f fanOut) Event(ctx context.Context, ev orchestrate.Event) {
	for _, r := range f {
		r.Event(ctx, ev)
	}
}
