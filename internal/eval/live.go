package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/session"
)

// With live agents, every protocol runs on every task: the agents come from the task's
// dixit.yml (agents:), not from scripted agent sets, and the protocol replaces the one
// it names.

// livePair makes the run of one protocol on one task with live agents, or says why the
// task's settings cannot run that protocol.
// model, when set, replaces every model the settings name (bot eval --model): it so
// enters the run's id, and a run with another model does not resume this one.
func livePair(t Task, protocol, model string) (pair, string, error) {
	settings, err := config.Load(filepath.Join(t.Dir, "dixit.yml"))
	if err != nil {
		return pair{}, "", fmt.Errorf("task %s: %w", t.Name, err)
	}
	settings.Protocol = protocol
	if model != "" {
		settings.Agents.Model = model
		for _, agents := range [][]config.AgentSettings{settings.Agents.Coders, settings.Agents.Testers} {
			for i := range agents {
				agents[i].Model = ""
			}
		}
	}
	if err := settings.Validate(); err != nil {
		return pair{}, fmt.Sprintf("the task's dixit.yml cannot run %s: %v", protocol, err), nil
	}
	spec, err := os.ReadFile(filepath.Join(t.Dir, "spec.md"))
	if err != nil {
		return pair{}, "", fmt.Errorf("task %s: %w", t.Name, err)
	}
	h := sha256.New()
	encoded, _ := json.Marshal(settings)
	h.Write(spec)
	h.Write(encoded)
	for _, dir := range append([]string{filepath.Join(t.Dir, "base")}, t.Hidden...) {
		if err := digest(h, dir); err != nil {
			return pair{}, "", fmt.Errorf("task %s: %w", t.Name, err)
		}
	}
	id := fmt.Sprintf("eval-live-%s-%s-%s", t.Name, protocol, hex.EncodeToString(h.Sum(nil))[:8])
	return pair{task: t, protocol: protocol, dir: t.Dir, runID: id, settings: settings, live: true, spec: string(spec)}, "", nil
}

// runLive runs a pair with the model behind opts.Client.
func runLive(ctx context.Context, opts Options, pr pair, lo session.Options) (*session.Outcome, error) {
	files, err := readFiles(filepath.Join(pr.task.Dir, "base"))
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", pr.task.Name, err)
	}
	lo.Population, lo.Client = "", opts.Client
	return session.RunInput(ctx, lo, session.Input{
		Spec: pr.spec, Files: files, Head: "bench:" + pr.task.Name, Settings: pr.settings, Source: "bench/" + pr.task.Name,
	})
}

// maxBaseFile bounds a file of a task's base revision.
const maxBaseFile = 4 << 20

// readFiles reads a base revision from a directory: regular files only, as a git tree
// would hold them.
func readFiles(root string) ([]gitstate.File, error) {
	var out []gitstate.File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > maxBaseFile {
			return fmt.Errorf("%s: larger than %d bytes", p, maxBaseFile)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, gitstate.File{Path: filepath.ToSlash(rel), Content: data, Executable: info.Mode()&0o111 != 0})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
