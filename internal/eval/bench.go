// Package eval runs protocols on a benchmark of tasks and measures them on tests no agent
// saw: the final implementation against hidden reference tests, and the run's own tests
// against a reference solution (docs/eval.md).
package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/config"
)

// Bench is a validated benchmark directory: one task per subdirectory.
type Bench struct {
	Dir   string
	Tasks []Task
}

// Task is one benchmark task: a spec and base revision, the agents each protocol runs
// with, and what only the evaluation sees (hidden tests, reference solution).
type Task struct {
	Name      string
	Dir       string
	Hidden    []string // hidden test files, sorted
	Reference string   // reference solution tree
	// Agents maps a protocol to the directory holding its dixit.yml and agents: the task
	// itself for the protocol its dixit.yml names, protocols/<p>/ for the others.
	Agents map[string]string
	// LiveOnly: the task has a dixit.yml but no scripted agents; only --live runs it.
	LiveOnly bool
}

// Protocols lists the protocols the task has agents for, in the docs' order.
func (t Task) Protocols() []string {
	var out []string
	for _, p := range config.Protocols {
		if _, ok := t.Agents[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

var taskName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,39}$`)

// agentEntries are what an agent set may hold; taskEntries what a task may hold besides.
var (
	agentEntries = []string{"dixit.yml", "coders", "testers", "advisors", "probe"}
	taskEntries  = []string{"spec.md", "base", "hidden", "reference", "protocols", "README.md"}
)

// benchFiles are the files a benchmark may hold beside its tasks: a benchmark drawn from
// a published data set carries that set's licence.
var benchFiles = []string{"README.md", "LICENSE"}

// maxHidden bounds one hidden test file, as populations bound a proposal.
const maxHidden = 1 << 20

// Load reads and checks a benchmark directory. Every problem names the path at fault;
// the populations themselves are checked when they are assembled (Prepare).
func Load(dir string) (*Bench, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("benchmark %s: %w", dir, err)
	}
	b := &Bench{Dir: dir}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			if slices.Contains(benchFiles, e.Name()) {
				continue
			}
			return nil, fmt.Errorf("benchmark %s: %s: expected a directory per task (or %s)", dir, path, strings.Join(benchFiles, ", "))
		}
		if !taskName.MatchString(e.Name()) {
			return nil, fmt.Errorf("benchmark %s: %s: task names are lower-case letters, digits, - and _ (at most 40)", dir, path)
		}
		t, err := loadTask(path)
		if err != nil {
			return nil, fmt.Errorf("benchmark %s: %w", dir, err)
		}
		b.Tasks = append(b.Tasks, t)
	}
	if len(b.Tasks) == 0 {
		return nil, fmt.Errorf("benchmark %s: no task directory", dir)
	}
	return b, nil
}

func loadTask(dir string) (Task, error) {
	t := Task{Name: filepath.Base(dir), Dir: dir, Reference: filepath.Join(dir, "reference"), Agents: map[string]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return t, fmt.Errorf("%s: %w", dir, err)
	}
	for _, e := range entries {
		if !slices.Contains(taskEntries, e.Name()) && !slices.Contains(agentEntries, e.Name()) {
			return t, fmt.Errorf("%s: unexpected entry (a task holds %s, and %s)",
				filepath.Join(dir, e.Name()), strings.Join(taskEntries, ", "), strings.Join(agentEntries, ", "))
		}
	}
	if err := regularFile(filepath.Join(dir, "spec.md")); err != nil {
		return t, err
	}
	for _, d := range []string{"base", "reference"} {
		if err := nonEmptyDir(filepath.Join(dir, d)); err != nil {
			return t, err
		}
	}
	if t.Hidden, err = hiddenFiles(filepath.Join(dir, "hidden")); err != nil {
		return t, err
	}
	// The task's own agents serve the protocol its dixit.yml names.
	if _, err := os.Stat(filepath.Join(dir, "dixit.yml")); err == nil {
		s, err := config.Load(filepath.Join(dir, "dixit.yml"))
		if err != nil {
			return t, fmt.Errorf("%s: %w", dir, err)
		}
		// Settings alone, with no scripted coders, are for live agents only.
		if _, err := os.Stat(filepath.Join(dir, "coders")); err == nil {
			t.Agents[s.Protocol] = dir
		} else {
			t.LiveOnly = true
		}
	} else {
		for _, name := range agentEntries[1:] {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return t, fmt.Errorf("%s: agents without a dixit.yml beside them", filepath.Join(dir, name))
			}
		}
	}
	if err := loadProtocols(&t); err != nil {
		return t, err
	}
	if len(t.Agents) == 0 && !t.LiveOnly {
		return t, fmt.Errorf("%s: no agents: add a dixit.yml with coders/ to the task, or protocols/<protocol>/", dir)
	}
	return t, nil
}

// loadProtocols reads protocols/<p>/: each is a whole agent set for protocol p, whose
// dixit.yml must name p, so that a file copied from elsewhere is not run as it stands.
func loadProtocols(t *Task) error {
	root := filepath.Join(t.Dir, "protocols")
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		if !e.IsDir() || !slices.Contains(config.Protocols, e.Name()) {
			return fmt.Errorf("%s: expected a directory named after a protocol (%s)", path, strings.Join(config.Protocols, ", "))
		}
		if other, ok := t.Agents[e.Name()]; ok {
			return fmt.Errorf("%s: the task's own dixit.yml (%s) already names protocol %s", path, other, e.Name())
		}
		inner, err := os.ReadDir(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, f := range inner {
			if !slices.Contains(agentEntries, f.Name()) {
				return fmt.Errorf("%s: unexpected entry (an agent set holds %s)", filepath.Join(path, f.Name()), strings.Join(agentEntries, ", "))
			}
		}
		s, err := config.Load(filepath.Join(path, "dixit.yml"))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if s.Protocol != e.Name() {
			return fmt.Errorf("%s: dixit.yml says protocol: %s, but the directory is for %s", path, s.Protocol, e.Name())
		}
		t.Agents[e.Name()] = path
	}
	return nil
}

func hiddenFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: the hidden tests' directory: %w", dir, err)
	}
	var out []string
	seen := map[string]string{}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if err := regularFile(path); err != nil {
			return nil, fmt.Errorf("%w (hidden/ holds one test file per hidden test)", err)
		}
		id := hiddenID(e.Name())
		if other, ok := seen[id]; ok {
			return nil, fmt.Errorf("%s: same test id %q as %s", path, id, other)
		}
		seen[id] = path
		out = append(out, path)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no hidden test", dir)
	}
	sort.Strings(out)
	return out, nil
}

var unsafeInID = regexp.MustCompile(`[^a-z0-9_]+`)

// hiddenID names a hidden test after its file: the id goes into a file name in the
// judge's copy, so only safe characters remain.
func hiddenID(file string) string {
	stem := strings.TrimSuffix(file, filepath.Ext(file))
	stem = strings.TrimSuffix(strings.TrimPrefix(stem, "test_"), "_test")
	return "hidden_" + strings.Trim(unsafeInID.ReplaceAllString(strings.ToLower(stem), "_"), "_")
}

func regularFile(path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() == 0 || info.Size() > maxHidden {
		return fmt.Errorf("%s: must hold 1 byte to %d bytes (holds %d)", path, maxHidden, info.Size())
	}
	return nil
}

func nonEmptyDir(path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: not a directory", path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(entries) == 0 {
		return fmt.Errorf("%s: empty directory", path)
	}
	return nil
}
