package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
)

// existingFile keeps the base's regression set in the run directory: the base's suite
// runs once per run, reruns times, and a resumed run reads it back.
const existingFile = "existing-tests.json"

// existingTests runs the tests the base revision already has, reruns times, and keeps
// those that passed every time as the regression set a coder must keep passing (issue
// 20, item 3). A base whose suite cannot run guards nothing, and the report says why.
func (s *session) existingTests(ctx context.Context, pre *runfile.Preflight, cfg config.Settings) (*runfile.Existing, error) {
	if cfg.ExistingTests == config.ExistingOff || s.base == "" || pre == nil || pre.OwnTests == "none" {
		return nil, nil
	}
	saved := filepath.Join(s.runDir, existingFile)
	if data, err := os.ReadFile(saved); err == nil {
		var e runfile.Existing
		if json.Unmarshal(data, &e) == nil {
			return &e, nil
		}
	}
	start := time.Now()
	e := &runfile.Existing{Mode: cfg.ExistingTests, Runs: cfg.Reruns}
	if asReached(cfg) {
		// The base's tests run when a change first reaches them (guard.baseSet).
		e.AsReached = true
		return e, s.saveExisting(e)
	}
	s.progress("the repository's own tests: %d runs on the base revision", cfg.Reruns)
	results, err := s.local.RunSuite(ctx, cfg.Reruns, []ci.SuiteJob{{Coder: ci.BaseName, Tree: baseTree{s.ws, s.base}}})
	switch {
	case errors.Is(err, ci.ErrNoSuite):
		e.Note = fmt.Sprintf("the judge cannot run the repository's own tests for toolchain %q yet: they guard nothing in this run", s.contract.Toolchain)
	case err != nil:
		return nil, fmt.Errorf("run the repository's own tests on the base revision: %w", err)
	default:
		base := results[0]
		e.Set = ci.NewRegressionSet(base)
		e.Outcome = base.Outcome
		if base.Outcome != ci.Pass {
			e.Output = base.Output
			e.Note = "the base's own tests did not run (" + string(base.Outcome) + "): they guard nothing in this run"
		}
	}
	e.Seconds = time.Since(start).Seconds()
	return e, s.saveExisting(e)
}

// asReached tells whether the base's own tests run only as coders' changes reach them
// rather than all before any agent works: for Python under existing_tests: affected,
// whose whole suite may take an hour (sympy's does) where the files one change reaches
// take minutes. Go's packages are cheap enough to run whole once.
func asReached(cfg config.Settings) bool {
	return cfg.ExistingTests == config.ExistingAffected && cfg.Test.Toolchain == "python"
}

// saveExisting keeps e in the run directory, for a resumed run and bot vet.
func (s *session) saveExisting(e *runfile.Existing) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(s.runDir, existingFile), data); err != nil {
		return fmt.Errorf("keep the regression set: %w", err)
	}
	return nil
}

// guard holds coders (and a patch under review) to the regression set: it runs their
// trees' suites with the base's test files laid over them, restricted to what their
// change touches when the language can tell.
type guard struct {
	s   *session
	set ci.RegressionSet
	all bool
	// base, when the base's tests run as changes reach them, is the record the set
	// grows in; baseMu keeps two coders from running the same base files at once.
	base   *runfile.Existing
	baseMu sync.Mutex

	mu   sync.Mutex
	seen map[string][]ci.Regression // by tree hash: a tree checked twice runs once
}

// newGuard is the run's guard, or nil when the regression set holds nothing and will
// not grow.
func (s *session) newGuard(e *runfile.Existing) *guard {
	if e == nil || (len(e.Set.Tests) == 0 && !e.AsReached) || e.Note != "" {
		return nil
	}
	g := &guard{s: s, set: e.Set, all: e.Mode == config.ExistingAll, seen: map[string][]ci.Regression{}}
	if e.AsReached {
		g.base = e
	}
	return g
}

func (g *guard) Regressions(ctx context.Context, coder string, tree ci.Tree) ([]ci.Regression, error) {
	g.mu.Lock()
	broken, ok := g.seen[tree.Hash()]
	g.mu.Unlock()
	if ok {
		return broken, nil
	}
	job := ci.SuiteJob{Coder: coder, Tree: tree, Tests: baseTree{g.s.ws, g.s.base}}
	if !g.all {
		paths, err := g.changed(coder, tree)
		if err != nil {
			return nil, fmt.Errorf("what %s changed: %w", coder, err)
		}
		if job.Only, err = g.s.local.Affected(ctx, job, paths); err != nil {
			return nil, err
		}
	}
	set, err := g.baseSet(ctx, job.Only)
	if err != nil {
		return nil, err
	}
	results, err := g.s.local.RunSuite(ctx, 1, []ci.SuiteJob{job})
	if err != nil {
		return nil, err
	}
	if r := results[0]; r.Outcome == ci.PrepareFailed {
		// Not a test's failure: the tree's dependencies did not install. Said once, with
		// the installer's words, rather than as every test of the set broken.
		broken = []ci.Regression{{Reason: r.Output}}
	} else {
		broken = ci.Regressions(set, r)
	}
	g.mu.Lock()
	g.seen[tree.Hash()] = broken
	g.mu.Unlock()
	return broken, nil
}

// changed lists the files a tree changes from the base. A coder's tree is in the
// workshop; the patch under review is not (it never reaches the agents' store), so its
// files are compared with the base's one by one.
func (g *guard) changed(coder string, tree ci.Tree) ([]string, error) {
	var paths []string
	if coder != vet.PatchName {
		changed, err := g.s.ws.DiffStat(g.s.base, tree.Hash())
		if err != nil {
			return nil, err
		}
		for _, f := range changed {
			paths = append(paths, f.Path)
		}
		return paths, nil
	}
	dir, err := os.MkdirTemp(filepath.Join(g.s.runDir, "tmp"), "patch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := tree.WriteTo(dir); err != nil {
		return nil, err
	}
	patch, err := gitstate.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	base, err := g.s.ws.Files(g.s.base)
	if err != nil {
		return nil, err
	}
	return changedPaths(base, patch.Files()), nil
}

// changedPaths lists the paths added, removed or changed from base to tree.
func changedPaths(base, tree []gitstate.File) []string {
	was := make(map[string]gitstate.File, len(base))
	for _, f := range base {
		was[f.Path] = f
	}
	var out []string
	for _, f := range tree {
		if old, ok := was[f.Path]; !ok || old.Executable != f.Executable || !bytes.Equal(old.Content, f.Content) {
			out = append(out, f.Path)
		}
		delete(was, f.Path)
	}
	for p := range was {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// baseSet is the regression set for a suite restricted to only (nil: the whole suite).
// When the base's tests run as changes reach them, the base first runs the files of only
// it has not run yet, reruns times, and the set grows by what passed every time.
func (g *guard) baseSet(ctx context.Context, only []string) (ci.RegressionSet, error) {
	if g.base == nil {
		return g.set, nil
	}
	g.baseMu.Lock()
	defer g.baseMu.Unlock()
	e := g.base
	var todo []string
	if !e.Whole {
		ran := map[string]bool{}
		for _, f := range e.Scope {
			ran[f] = true
		}
		for _, f := range only {
			if !ran[f] {
				todo = append(todo, f)
			}
		}
	}
	if (only == nil && !e.Whole) || len(todo) > 0 {
		start := time.Now()
		g.s.progress("%s", report.OwnTestsOnBase(len(todo), e.Runs))
		job := ci.SuiteJob{Coder: ci.BaseName, Tree: baseTree{g.s.ws, g.s.base}, Only: todo}
		results, err := g.s.local.RunSuite(ctx, e.Runs, []ci.SuiteJob{job})
		if err != nil {
			return ci.RegressionSet{}, fmt.Errorf("run the repository's own tests on the base revision: %w", err)
		}
		r := results[0]
		if r.Outcome != ci.Pass && e.Output == "" {
			e.Output = r.Output // those files guard nothing; the report shows why
		}
		e.Set = mergeSets(e.Set, ci.NewRegressionSet(r))
		if only == nil {
			e.Whole = true
		}
		e.Scope = append(e.Scope, todo...)
		slices.Sort(e.Scope)
		e.Seconds += time.Since(start).Seconds()
		if err := g.s.saveExisting(e); err != nil {
			return ci.RegressionSet{}, err
		}
	}
	return e.Set, nil
}

// mergeSets adds b's tests to a's, each once, in order; a test flaky in either is flaky.
func mergeSets(a, b ci.RegressionSet) ci.RegressionSet {
	flaky := map[string]bool{}
	for _, t := range append(slices.Clone(a.Flaky), b.Flaky...) {
		flaky[t] = true
	}
	out := ci.RegressionSet{Runs: max(a.Runs, b.Runs)}
	for _, t := range append(slices.Clone(a.Tests), b.Tests...) {
		if !flaky[t] {
			out.Tests = append(out.Tests, t)
		}
	}
	for t := range flaky {
		out.Flaky = append(out.Flaky, t)
	}
	slices.Sort(out.Tests)
	out.Tests = slices.Compact(out.Tests)
	slices.Sort(out.Flaky)
	return out
}
