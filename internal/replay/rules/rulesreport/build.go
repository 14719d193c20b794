package rulesreport

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/rules/humaneval"
)

// Judge is the sandbox the empty-body stubs run in when the derived file is built.
type Judge struct {
	Sandbox  string // ci.Sandbox: auto, bwrap or none
	Parallel int
	Python   string // parses the coders' programs for the majority vote; "" is /usr/bin/python3
}

// BuildDerived computes the HumanEval derived file (each assert on an empty-body stub, and
// the groups of identical normalised programs) and writes it to path. It runs the stubs in
// the judge's sandbox: a few minutes for the 164 problems.
func BuildDerived(ctx context.Context, problemsPath, path string, j Judge, stdout io.Writer) error {
	start := time.Now()
	problems, err := replay.LoadFile(ctx, problemsPath)
	if err != nil {
		return fmt.Errorf("build derived: %w", err)
	}
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: replay.ExecContract(), Sandbox: ci.Sandbox(j.Sandbox), Parallel: j.Parallel})
	if err != nil {
		return fmt.Errorf("build derived: the judge: %w", err)
	}
	defer judge.Close()
	if err := replay.CheckJudge(ctx, judge); err != nil {
		return fmt.Errorf("build derived: %w", err)
	}
	python := j.Python
	if python == "" {
		python = "/usr/bin/python3"
	}
	ds, err := humaneval.Build(ctx, problems, humaneval.BuildOptions{Judge: judge, Python: python,
		Progress: func(msg string) { fmt.Fprintln(stdout, msg) }})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("build derived: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("build derived: %w", err)
	}
	if err := humaneval.Write(f, ds); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("build derived: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d problems, %.0f s)\n", path, len(ds), time.Since(start).Seconds())
	return nil
}
