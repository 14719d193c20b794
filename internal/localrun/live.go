package localrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/agent"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
)

// maxSpec bounds a spec file: an issue body is at most 65,536 characters on GitHub.
const maxSpec = 256 << 10

// RunLive executes (or resumes) the Dixit protocol with live LLM agents on the committed
// HEAD of the repository at opts.Repo.
func RunLive(ctx context.Context, opts Options) (*Outcome, error) {
	if opts.Client == nil {
		return nil, fmt.Errorf("a live run needs an LLM client")
	}
	spec, err := readSpec(opts.Spec)
	if err != nil {
		return nil, err
	}
	files, head, err := gitstate.ReadHead(opts.Repo)
	if err != nil {
		return nil, err
	}
	cfg, err := liveSettings(opts.Config, files)
	if err != nil {
		return nil, err
	}
	if opts.RunID == "" {
		opts.RunID = liveRunID(opts.Repo, spec, head, cfg)
	}
	s, err := open(opts, cfg.Test)
	if err != nil {
		return nil, err
	}
	defer s.close()

	tree, err := s.ws.WriteFiles(files)
	if err != nil {
		return nil, err
	}
	base, err := s.ws.CommitAfter("refs/dixit/"+opts.RunID+"/base", "", tree, "base revision "+head)
	if err != nil {
		return nil, err
	}
	baseDir := filepath.Join(s.runDir, "work", "base")
	if err := os.RemoveAll(baseDir); err != nil {
		return nil, fmt.Errorf("prepare base checkout: %w", err)
	}
	if err := s.ws.Checkout(base, baseDir); err != nil {
		return nil, err
	}

	common := agent.Options{
		Client: opts.Client, Model: cfg.Agents.Model, MaxSteps: cfg.Agents.MaxSteps, TurnTimeout: cfg.Agents.TurnTimeout,
		Spec: spec, Workshop: s.ws, Run: opts.RunID, Logger: s.opts.Logger,
	}
	var coders []orchestrate.Coder
	for _, settings := range cfg.Agents.Coders {
		o := common
		o.Settings = settings
		dir := filepath.Join(s.runDir, "work", "coders", settings.Name)
		var c orchestrate.Coder
		if cfg.Agents.CoderCommand != "" {
			c, err = agent.NewExternal(agent.ExternalOptions{Options: o, Command: cfg.Agents.CoderCommand,
				Timeout: cfg.Agents.CommandTimeout, Dir: dir, Base: base})
		} else {
			c, err = agent.NewCoder(o, dir, base, s.local)
		}
		if err != nil {
			return nil, err
		}
		coders = append(coders, c)
	}
	var testers []orchestrate.Tester
	for _, settings := range cfg.Agents.Testers {
		o := common
		o.Settings = settings
		t, err := agent.NewTester(o, baseDir, cfg.Test)
		if err != nil {
			return nil, err
		}
		testers = append(testers, t)
	}
	return s.execute(ctx, cfg, coders, testers, func(sum *report.Summary) {
		sum.Population, sum.Agents = opts.Repo+" @ "+head[:12], "llm"
	})
}

func readSpec(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read spec: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpec+1))
	if err != nil {
		return "", fmt.Errorf("read spec %s: %w", path, err)
	}
	if len(data) > maxSpec || len(data) == 0 {
		return "", fmt.Errorf("spec %s must hold between 1 and %d bytes", path, maxSpec)
	}
	return string(data), nil
}

// liveSettings reads --config when given, else .github/dixit.yml as committed at HEAD,
// else the defaults.
func liveSettings(path string, files []gitstate.File) (config.Settings, error) {
	if path != "" {
		return config.Load(path)
	}
	for _, f := range files {
		if f.Path == ".github/dixit.yml" {
			s, err := config.Parse(f.Content)
			if err != nil {
				return config.Settings{}, fmt.Errorf(".github/dixit.yml at HEAD: %w", err)
			}
			return s, nil
		}
	}
	return config.Parse(nil)
}

// liveRunID names a run after its repository and a digest of what defines it, so the same
// command resumes the same run.
func liveRunID(repo, spec, head string, cfg config.Settings) string {
	h := sha256.New()
	settings, _ := json.Marshal(cfg)
	fmt.Fprintf(h, "%s\n%s\n%s\n", spec, head, settings)
	abs, err := filepath.Abs(repo)
	if err != nil {
		abs = repo
	}
	return unsafeInRef.ReplaceAllString(filepath.Base(abs), "-") + "-" + hex.EncodeToString(h.Sum(nil))[:8]
}
