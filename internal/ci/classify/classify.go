package classify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
)

// Options is one classification: a batch of tests against one coder's tree.
type Options struct {
	Run, Batch string // ids echoed into results.json
	Coder      string
	Tree       ci.Tree // its Hash must be a git tree hash (DirTree and RepoTree give one)
	Tests      []ci.Test
	Reruns     int
	Contract   ci.Contract

	// The local judge's settings (ci.LocalOptions).
	Sandbox  ci.Sandbox
	WorkDir  string
	CacheDir string
	Parallel int
	Logger   *slog.Logger
	// Verdicts is a verdict cache directory (ci.NewCached) to answer jobs judged before
	// from, or "" for none: a GitHub-hosted runner starts empty every time, a runner
	// kept between workflow runs (or tests' stand-in for one) need not judge a job twice.
	Verdicts string
}

// Classify runs every test against the tree with the local judge, exactly as `bot run`
// and `bot demo` judge, and returns results.json's content. A judge failure returns the
// error and results whose Error says why (and no verdicts), so the caller can still write
// results.json for the backend.
func Classify(ctx context.Context, o Options) (Results, error) {
	start := time.Now()
	res := Results{Schema: Schema, Run: o.Run, Batch: o.Batch, Coder: o.Coder, Reruns: o.Reruns,
		Bot: botVersion(), Started: start.UTC().Truncate(time.Millisecond), Tests: []TestResult{}}
	fail := func(err error) (Results, error) {
		res.Seconds = round3(time.Since(start).Seconds())
		res.Error = clipError(err.Error())
		res.Tests = []TestResult{}
		return res, err
	}
	if err := o.check(); err != nil {
		return fail(err)
	}
	res.Tree = o.Tree.Hash()
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: o.Contract, WorkDir: o.WorkDir, CacheDir: o.CacheDir,
		Parallel: o.Parallel, Sandbox: o.Sandbox, Logger: logger})
	if err != nil {
		return fail(fmt.Errorf("judge: %w", err))
	}
	defer judge.Close()
	res.Isolation = judge.Isolation()
	var run ci.Judge = judge
	if o.Verdicts != "" {
		if run, err = ci.NewCached(judge, o.Contract, o.Verdicts, logger); err != nil {
			return fail(fmt.Errorf("judge: %w", err))
		}
	}
	jobs := make([]ci.Job, len(o.Tests))
	for i, t := range o.Tests {
		jobs[i] = ci.Job{Coder: o.Coder, Tree: o.Tree, Test: t}
	}
	verdicts, err := run.Run(ctx, o.Reruns, jobs)
	if err != nil {
		return fail(fmt.Errorf("judge: %w", err))
	}
	for i, v := range verdicts {
		res.Tests = append(res.Tests, resultFrom(o.Tests[i], v))
	}
	res.Seconds = round3(time.Since(start).Seconds())
	// What we write, we must be able to read.
	if err := res.check(); err != nil {
		return fail(fmt.Errorf("inconsistent results: %w", err))
	}
	return res, nil
}

func (o Options) check() error {
	switch {
	case o.Run != "" && !namePattern.MatchString(o.Run):
		return fmt.Errorf("run id %q: want 1 to 100 letters, digits, '.', '_' and '-'", o.Run)
	case !namePattern.MatchString(o.Batch):
		return fmt.Errorf("batch id %q: want 1 to 100 letters, digits, '.', '_' and '-'", o.Batch)
	case !namePattern.MatchString(o.Coder):
		return fmt.Errorf("coder %q: want 1 to 100 letters, digits, '.', '_' and '-'", o.Coder)
	case o.Reruns < 1 || o.Reruns > 1000:
		return fmt.Errorf("reruns %d: want 1 to 1000", o.Reruns)
	case o.Tree == nil:
		return errors.New("no tree")
	case !treePattern.MatchString(o.Tree.Hash()):
		return fmt.Errorf("tree hash %q is not a git tree hash", o.Tree.Hash())
	}
	return checkTests(o.Tests)
}

func clipError(s string) string {
	if len(s) > ci.MaxOutput {
		return s[:ci.MaxOutput] + " [clipped]"
	}
	return s
}

// botVersion names the running binary: its module version, else its VCS revision.
func botVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && (v == "" || v == "(devel)") {
			v = s.Value
		}
	}
	if len(v) > 200 {
		v = v[:200]
	}
	return v
}
