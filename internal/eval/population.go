package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/dixit-bot/dixit/internal/agent/scripted"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Prepare assembles the population for one protocol of a task in dst: the task's spec.md
// and base/, with the protocol's agent set. It checks it as any population is checked, and
// returns a run id that changes with its content and the hidden tests, so running the same
// benchmark again resumes the same runs and editing a task starts new ones.
func Prepare(t Task, protocol, dst string) (runID string, err error) {
	src, ok := t.Agents[protocol]
	if !ok {
		return "", fmt.Errorf("task %s: no agents for protocol %s", t.Name, protocol)
	}
	if err := os.RemoveAll(dst); err != nil {
		return "", fmt.Errorf("clear %s: %w", dst, err)
	}
	copies := [][2]string{{filepath.Join(t.Dir, "spec.md"), "spec.md"}, {filepath.Join(t.Dir, "base"), "base"}}
	for _, name := range agentEntries {
		if _, err := os.Stat(filepath.Join(src, name)); err == nil {
			copies = append(copies, [2]string{filepath.Join(src, name), name})
		}
	}
	for _, c := range copies {
		if err := copyTree(c[0], filepath.Join(dst, c[1])); err != nil {
			return "", fmt.Errorf("task %s, protocol %s: %w", t.Name, protocol, err)
		}
	}
	if _, err := scripted.Load(dst); err != nil {
		return "", fmt.Errorf("task %s, protocol %s (agents from %s): %w", t.Name, protocol, src, err)
	}
	h := sha256.New()
	for _, dir := range append([]string{dst}, t.Hidden...) {
		if err := digest(h, dir); err != nil {
			return "", fmt.Errorf("task %s: %w", t.Name, err)
		}
	}
	return fmt.Sprintf("eval-%s-%s-%s", t.Name, protocol, hex.EncodeToString(h.Sum(nil))[:8]), nil
}

// HiddenTests reads the task's hidden tests as candidates for the judge.
func HiddenTests(t Task) ([]orchestrate.Candidate, error) {
	out := make([]orchestrate.Candidate, 0, len(t.Hidden))
	for _, path := range t.Hidden {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.Name, err)
		}
		out = append(out, orchestrate.Candidate{ID: hiddenID(filepath.Base(path)), Tester: "hidden", Content: data})
	}
	return out, nil
}

// copyTree copies regular files and directories; anything else is refused, as a
// population's trees refuse it.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return fmt.Errorf("%s: not a regular file or directory", p)
	})
}

// digest feeds every regular file under root (or root itself), with its path, into h.
func digest(h interface{ Write([]byte) (int, error) }, root string) error {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", root, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	return nil
}
