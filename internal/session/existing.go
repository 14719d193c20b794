package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
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
	data, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(saved, data); err != nil {
		return nil, fmt.Errorf("keep the regression set: %w", err)
	}
	return e, nil
}

// guard holds coders (and a patch under review) to the regression set: it runs their
// trees' suites with the base's test files laid over them, restricted to what their
// change touches when the language can tell.
type guard struct {
	s   *session
	set ci.RegressionSet
	all bool

	mu   sync.Mutex
	seen map[string][]ci.Regression // by tree hash: a tree checked twice runs once
}

// newGuard is the run's guard, or nil when the regression set holds nothing.
func (s *session) newGuard(e *runfile.Existing) *guard {
	if e == nil || len(e.Set.Tests) == 0 {
		return nil
	}
	return &guard{s: s, set: e.Set, all: e.Mode == config.ExistingAll, seen: map[string][]ci.Regression{}}
}

func (g *guard) Regressions(ctx context.Context, coder string, tree ci.Tree) ([]ci.Regression, error) {
	g.mu.Lock()
	broken, ok := g.seen[tree.Hash()]
	g.mu.Unlock()
	if ok {
		return broken, nil
	}
	job := ci.SuiteJob{Coder: coder, Tree: tree, Tests: baseTree{g.s.ws, g.s.base}}
	// A patch under review is not in the workshop, so what it changed is not measured
	// there: its whole suite runs.
	if !g.all && coder != vet.PatchName {
		changed, err := g.s.ws.DiffStat(g.s.base, tree.Hash())
		if err != nil {
			return nil, fmt.Errorf("what %s changed: %w", coder, err)
		}
		var paths []string
		for _, f := range changed {
			paths = append(paths, f.Path)
		}
		if job.Only, err = g.s.local.Affected(ctx, job, paths); err != nil {
			return nil, err
		}
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
		broken = ci.Regressions(g.set, r)
	}
	g.mu.Lock()
	g.seen[tree.Hash()] = broken
	g.mu.Unlock()
	return broken, nil
}
