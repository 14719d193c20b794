package humanevalgo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Skip is a problem left out of the benchmark, with the reason.
type Skip struct {
	TaskID string
	Why    string
}

// Selection is what Generate wrote: the tasks in problem order, and the problems before
// the last one picked that were left out.
type Selection struct {
	Tasks   []Task
	Skipped []Skip
}

// Generate converts the problems in order and keeps the first count whose hidden test
// builds and passes on the reference and fails on the base revision (checked with the go
// command, offline). It writes each kept task under dst/<task>/, which must not exist yet.
func Generate(ctx context.Context, problems []Problem, dst string, count int) (Selection, error) {
	var sel Selection
	for _, p := range problems {
		if len(sel.Tasks) == count {
			break
		}
		t, err := Convert(p)
		if err == nil {
			err = Check(ctx, t)
		}
		if err != nil {
			sel.Skipped = append(sel.Skipped, Skip{TaskID: p.TaskID, Why: err.Error()})
			continue
		}
		sel.Tasks = append(sel.Tasks, t)
	}
	if len(sel.Tasks) < count {
		return sel, fmt.Errorf("only %d of %d problems convert cleanly", len(sel.Tasks), count)
	}
	for _, t := range sel.Tasks {
		if err := writeTask(filepath.Join(dst, t.Name), t); err != nil {
			return sel, err
		}
	}
	return sel, nil
}

func writeTask(dir string, t Task) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists: remove the old benchmark's tasks first", dir)
	}
	paths := make([]string, 0, len(t.Files))
	for p := range t.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		data := t.Files[p]
		if strings.HasSuffix(p, ".go") { // the source's indentation is spaces: gofmt's is the project's
			formatted, err := format.Source(data)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			data = formatted
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Check runs the task's hidden test with the go command, offline: it must pass on the
// reference, and the base revision must build and fail it.
func Check(ctx context.Context, t Task) error {
	ref, err := goTest(ctx, t, "reference")
	if err != nil {
		return err
	}
	switch {
	case strings.Contains(ref.output, "[build failed]"):
		return fmt.Errorf("the canonical solution does not build as a file of its own: %s", lastLines(ref.output, 6))
	case !ref.passed:
		return fmt.Errorf("the hidden test fails on the reference: %s", lastLines(ref.output, 6))
	}
	base, err := goTest(ctx, t, "base")
	if err != nil {
		return err
	}
	switch {
	case base.passed:
		return fmt.Errorf("the hidden test passes on the base revision")
	case strings.Contains(base.output, "[build failed]") || strings.Contains(base.output, "[setup failed]"):
		return fmt.Errorf("the base revision does not build with the hidden test: %s", lastLines(base.output, 6))
	}
	return nil
}

type testRun struct {
	passed bool
	output string
}

// goTest copies one tree of the task and its hidden test into a temporary directory and
// runs go test there, with no network and the local toolchain.
func goTest(ctx context.Context, t Task, tree string) (testRun, error) {
	dir, err := os.MkdirTemp("", "humanevalgo-")
	if err != nil {
		return testRun{}, err
	}
	defer os.RemoveAll(dir)
	for p, data := range t.Files {
		var rel string
		switch {
		case strings.HasPrefix(p, tree+"/"):
			rel = strings.TrimPrefix(p, tree+"/")
		case strings.HasPrefix(p, "hidden/"):
			rel = strings.TrimPrefix(p, "hidden/")
		default:
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			return testRun{}, err
		}
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-vet=off", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return testRun{}, ctx.Err()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return testRun{}, fmt.Errorf("run go test: %w", err)
	}
	return testRun{passed: err == nil, output: out.String()}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
