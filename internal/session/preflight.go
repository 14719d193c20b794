package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// preflightFile remembers, in the run directory, that the base passed its preflight: a
// resumed run does not build it again. A failed preflight is never remembered, so the
// same command checks again once the environment is fixed.
const preflightFile = "preflight.json"

// preflight builds the base revision with an empty test in the judge's sandbox, then runs
// the base's own tests, before any agent is paid. It never uses the verdict cache: an
// environment's failure must not outlive its fix. nil means there was nothing to check.
func (s *session) preflight(ctx context.Context) (*runfile.Preflight, error) {
	if s.base == "" {
		return nil, nil
	}
	saved := filepath.Join(s.runDir, preflightFile)
	if data, err := os.ReadFile(saved); err == nil {
		var p runfile.Preflight
		if json.Unmarshal(data, &p) == nil && p.Passed {
			return &p, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", saved, err)
	}
	start := time.Now()
	files, job, ok, err := s.canaryJob()
	if err != nil || !ok {
		return nil, err // !ok: an empty base, or a test language the canary does not speak
	}
	verdicts, err := s.inner.Run(ctx, 1, []ci.Job{job})
	if err != nil {
		return nil, fmt.Errorf("preflight: judge the base revision: %w", err)
	}
	v := verdicts[0]
	p := &runfile.Preflight{Passed: v.Passed(), Outcome: string(v.Outcome)}
	if !v.Passed() {
		p.Output, p.Hint = v.Output, ci.EnvironmentHint(s.contract, v)
		p.Seconds = time.Since(start).Seconds()
		return p, nil
	}
	if err := s.ownTests(ctx, p, files, job); err != nil {
		return nil, err
	}
	p.Seconds = time.Since(start).Seconds()
	if data, err := json.Marshal(p); err == nil {
		if err := os.WriteFile(saved, data, 0o644); err != nil {
			return nil, fmt.Errorf("preflight: %w", err)
		}
	}
	return p, nil
}

// canaryJob is the base revision with an empty test; ok is false when the base is empty
// or its tests' language is not one the canary speaks.
func (s *session) canaryJob() ([]gitstate.File, ci.Job, bool, error) {
	if s.base == "" {
		return nil, ci.Job{}, false, nil
	}
	files, err := s.ws.Files(s.base)
	if err != nil {
		return nil, ci.Job{}, false, fmt.Errorf("preflight: read the base revision: %w", err)
	}
	canary, ok := canaryTest(s.contract.Path, files)
	if len(files) == 0 || !ok {
		return nil, ci.Job{}, false, nil
	}
	return files, ci.Job{Coder: ci.BaseName, Tree: baseTree{s.ws, s.base}, Test: ci.Test{ID: "preflight", Content: canary}}, true, nil
}

// ownTests runs the tests the base already has (the files the contract keeps from a
// coder), with the canary beside them. Their failing is noted, not fatal: the base may
// be broken in the very way the spec asks to fix.
func (s *session) ownTests(ctx context.Context, p *runfile.Preflight, files []gitstate.File, job ci.Job) error {
	var own int
	for _, f := range files {
		if s.contract.Private(f.Path) {
			own++
		}
	}
	if own == 0 {
		p.OwnTests = "none"
		return nil
	}
	if s.ownAsReached {
		return nil // the guard runs them on the base as changes reach them
	}
	contract, ok := s.contract.OwnTests()
	if !ok {
		p.OwnTests = "not run"
		p.OwnOutput = "the test contract's run command does not say how to run every test"
		return nil
	}
	judge, done, err := s.judgeFor(ctx, contract)
	if err != nil {
		return fmt.Errorf("preflight: start a judge for the base's own tests: %w", err)
	}
	defer done()
	verdicts, err := judge.Run(ctx, 1, []ci.Job{job})
	if err != nil {
		return fmt.Errorf("preflight: run the base's own tests: %w", err)
	}
	p.OwnTests = string(verdicts[0].Outcome)
	if !verdicts[0].Passed() {
		p.OwnOutput, p.OwnFailing = verdicts[0].Output, ci.FailingTests(verdicts[0].Output)
	}
	return nil
}

// judgeFor makes a judge, like the run's, for another contract.
func (s *session) judgeFor(ctx context.Context, contract ci.Contract) (ci.Judge, func(), error) {
	if j, err := s.opts.Host.Judge(ctx, contract); j != nil || err != nil {
		return j, func() {}, err
	}
	local, err := ci.NewLocal(ci.LocalOptions{
		Contract: contract,
		WorkDir:  filepath.Join(s.runDir, "tmp"),
		CacheDir: s.opts.BuildCache,
		Parallel: 1,
		Sandbox:  s.opts.Sandbox,
		Private:  []string{s.opts.StateDir, s.opts.ResultCache},
		Logger:   s.opts.Logger,
	})
	if err != nil {
		return nil, nil, err
	}
	return local, func() { local.Close() }, nil
}

// canaryTest is a test that passes on any tree that builds and whose runner starts: the
// language is the contract's test path's.
func canaryTest(testPath string, files []gitstate.File) ([]byte, bool) {
	switch path.Ext(testPath) {
	case ".go":
		return []byte("package " + goPackage(testPath, files) + "\n\nimport \"testing\"\n\nfunc TestDixitPreflight(t *testing.T) {}\n"), true
	case ".py":
		return []byte("def test_dixit_preflight():\n    pass\n"), true
	case ".js", ".mjs", ".cjs":
		// A dynamic import loads node:test from a CommonJS file and an ES module alike.
		return []byte("import('node:test').then(({ test }) => test('dixit preflight', () => {}));\n"), true
	case ".ts", ".mts":
		if !esModule(files) {
			return []byte("import('node:test').then(({ test }) => test('dixit preflight', () => {}));\n"), true
		}
		// An ES module may await its runner: vitest's (it sets VITEST) or node's, so the
		// canary suits the TypeScript preset and a contract that runs vitest alike.
		return []byte("const { test } = process.env.VITEST ? await import('vitest') : await import('node:test');\n\ntest('dixit preflight', () => {});\n"), true
	}
	return nil, false
}

// esModule reports whether the repository's package.json makes its files ES modules.
func esModule(files []gitstate.File) bool {
	for _, f := range files {
		if f.Path == "package.json" {
			var pkg struct {
				Type string `json:"type"`
			}
			return json.Unmarshal(f.Content, &pkg) == nil && pkg.Type == "module"
		}
	}
	return false
}

// goPackage is the package the test's directory declares, from its non-test files when
// it has any; a directory without Go files takes any name.
func goPackage(testPath string, files []gitstate.File) string {
	dir, name := path.Dir(testPath), ""
	for _, f := range files {
		if path.Dir(f.Path) != dir || path.Ext(f.Path) != ".go" {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Content, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		pkg := parsed.Name.Name
		if !strings.HasSuffix(f.Path, "_test.go") {
			return pkg
		}
		if name == "" {
			name = strings.TrimSuffix(pkg, "_test")
		}
	}
	if name == "" {
		name = "dixit"
	}
	return name
}

// environmentResult is the run's result when the preflight failed: no agent worked.
func environmentResult(protocol string, p *runfile.Preflight) *orchestrate.Result {
	return &orchestrate.Result{
		Protocol: protocol,
		Outcome:  orchestrate.Environment,
		Reason:   report.EnvironmentReason(p),
		SpentBy:  map[string]orchestrate.Spend{},
	}
}

// stopForEnvironment ends a run whose base failed its preflight: the summary and the
// report say why, and no agent, comparison or patch verdict is attempted.
func (s *session) stopForEnvironment(ctx context.Context, cfg config.Settings, p *runfile.Preflight, reporter orchestrate.Reporter,
	describe func(*runfile.Summary)) (*Outcome, error) {
	res := environmentResult(cfg.Protocol, p)
	// The status comment and the progress lines learn of the stop as of any other.
	// The line says what stopped; the hint is said once, in the outcome that follows.
	stop := orchestrate.Event{Seq: 1, Kind: orchestrate.EvEscalate, Outcome: res.Outcome, Detail: report.EnvironmentStop(p)}
	res.Events = append(res.Events, stop)
	reporter.Event(ctx, stop)
	sum := report.NewSummary(s.opts.RunID, res)
	sum.Preflight = p
	describe(&sum)
	sum.StateDir, sum.TestPath = s.opts.StateDir, cfg.Test.Path
	return s.write(sum, res)
}

// baseTree is the base revision, a tree or a commit, as the judge sees it.
type baseTree struct {
	ws   *gitstate.Workshop
	hash string
}

func (b baseTree) Hash() string             { return b.hash }
func (b baseTree) WriteTo(dir string) error { return b.ws.Checkout(b.hash, dir) }
