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
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/agent"
	"github.com/dixit-bot/dixit/internal/agent/scripted"
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
	return RunInput(ctx, opts, Input{Spec: spec, Files: files, Head: head, Settings: cfg, Source: opts.Repo})
}

// Input is what a run works on, wherever it came from (a repository on disk, or an
// issue and a repository on GitHub).
type Input struct {
	Spec      string
	Files     []gitstate.File // the base revision
	Head      string          // the base revision's commit in its repository
	Settings  config.Settings
	Source    string                 // where the base came from, for the summary
	Reporters []orchestrate.Reporter // told every event, besides the progress display
}

// RunInput executes (or resumes) a run on in: with live agents through opts.Client, or
// with the scripted agents of opts.Population standing in for them.
func RunInput(ctx context.Context, opts Options, in Input) (*Outcome, error) {
	if opts.Protocol != "" {
		in.Settings.Protocol = opts.Protocol
	}
	s, err := open(opts, in.Settings.Test)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// A resumed run keeps the spec and the base it started from, even if the issue was
	// edited or the branch moved since: its agents' histories were built on them.
	if in.Spec, err = s.pinSpec(in.Spec); err != nil {
		return nil, err
	}
	baseRef := "refs/dixit/" + opts.RunID + "/base"
	base, pinned, err := s.ws.Ref(baseRef)
	if err != nil {
		return nil, err
	}
	if pinned {
		if msg, err := s.ws.Message(base); err == nil {
			in.Head = strings.TrimSpace(strings.TrimPrefix(msg, "base revision "))
		}
	} else {
		tree, err := s.ws.WriteFiles(in.Files)
		if err != nil {
			return nil, err
		}
		if base, err = s.ws.CommitAfter(baseRef, "", tree, "base revision "+in.Head); err != nil {
			return nil, err
		}
	}
	coders, testers, kind, err := s.agents(in, base)
	if err != nil {
		return nil, err
	}
	return s.execute(ctx, in.Settings, coders, testers, in.Reporters, func(sum *report.Summary) {
		sum.Population, sum.Agents = in.Source+" @ "+shortHash(in.Head), kind
		_, sum.SpecComments = agent.VisibleSpec(in.Spec) // cut before any agent read the spec
	})
}

// agents makes the run's coders and testers: scripted when a population is given.
func (s *session) agents(in Input, base string) ([]orchestrate.Coder, []orchestrate.Tester, string, error) {
	var coders []orchestrate.Coder
	var testers []orchestrate.Tester
	if s.opts.Population != "" {
		pop, err := scripted.Load(s.opts.Population)
		if err != nil {
			return nil, nil, "", err
		}
		for _, c := range pop.Coders {
			coders = append(coders, scripted.NewCoder(s.ws, s.opts.RunID, c))
		}
		for _, t := range pop.Testers {
			testers = append(testers, scripted.NewTester(s.ws, s.opts.RunID, t))
		}
		for _, a := range pop.Advisors {
			s.advisors = append(s.advisors, scripted.NewAdvisor(s.ws, s.opts.RunID, a))
		}
		s.newCoder = scriptedReplacement(s, pop)
		s.base, s.probe = base, populationProbe(pop.Probe)
		return coders, testers, "scripted", nil
	}
	if s.opts.Client == nil {
		return nil, nil, "", fmt.Errorf("a live run needs an LLM client")
	}
	cfg := in.Settings
	baseDir := filepath.Join(s.runDir, "work", "base")
	if err := os.RemoveAll(baseDir); err != nil {
		return nil, nil, "", fmt.Errorf("prepare base checkout: %w", err)
	}
	if err := s.ws.Checkout(base, baseDir); err != nil {
		return nil, nil, "", err
	}
	common := agent.Options{
		Client: s.opts.Client, Model: cfg.Agents.Model, MaxSteps: cfg.Agents.MaxSteps, TurnTimeout: cfg.Agents.TurnTimeout,
		Spec: in.Spec, Tools: cfg.Agents.Tools, Workshop: s.ws, Run: s.opts.RunID, Logger: s.opts.Logger,
	}
	newCoder := func(settings config.AgentSettings) (orchestrate.Coder, error) {
		o := common
		o.Settings = settings
		dir := filepath.Join(s.runDir, "work", "coders", settings.Name)
		if cfg.Agents.CoderCommand != "" {
			return agent.NewExternal(agent.ExternalOptions{Options: o, Command: cfg.Agents.CoderCommand,
				Timeout: cfg.Agents.CommandTimeout, Dir: dir, Base: base})
		}
		return agent.NewCoder(o, dir, base, s.local)
	}
	for _, settings := range cfg.Agents.Coders {
		c, err := newCoder(settings)
		if err != nil {
			return nil, nil, "", err
		}
		coders = append(coders, c)
	}
	// A replacement keeps the replaced coder's settings (its persona, temperature,
	// model) with a seed of its own, so it samples afresh.
	s.newCoder = func(replaces, name string) (orchestrate.Coder, error) {
		stem, _ := generationOf(replaces)
		_, generation := generationOf(name)
		for _, settings := range cfg.Agents.Coders {
			if settings.Name == stem {
				settings.Name = name
				settings.Seed += 1000 * generation
				return newCoder(settings)
			}
		}
		return nil, fmt.Errorf("no settings for coder %s", replaces)
	}
	for _, settings := range cfg.Agents.Testers {
		o := common
		o.Settings = settings
		t, err := agent.NewTester(o, baseDir, cfg.Test)
		if err != nil {
			return nil, nil, "", err
		}
		testers = append(testers, t)
	}
	if cfg.Protocol == config.ProtocolTDG || cfg.Protocol == config.ProtocolBlind {
		o := common
		newAdvisor, name := agent.NewNavigator, "navigator"
		if cfg.Protocol == config.ProtocolBlind {
			newAdvisor, name = agent.NewPlanner, "planner"
		}
		o.Settings = config.AgentSettings{Name: name, Temperature: cfg.Agents.Coders[0].Temperature}
		a, err := newAdvisor(o)
		if err != nil {
			return nil, nil, "", err
		}
		s.advisors = append(s.advisors, a)
	}
	if cfg.Protocol == config.ProtocolCritics {
		for _, kind := range cfg.Critics.Kinds() {
			o := common
			o.Settings = config.AgentSettings{Name: "critic_" + kind, Temperature: cfg.Agents.Coders[0].Temperature}
			critic, err := agent.NewCritic(o, kind)
			if err != nil {
				return nil, nil, "", err
			}
			s.advisors = append(s.advisors, critic)
		}
	}
	s.base, s.probe = base, testerProbe(testers, cfg.Test)
	return coders, testers, "llm", nil
}

// generationOf splits a coder's name into the configured name and its generation:
// "dee" is generation 1, "dee_3" generation 3.
func generationOf(name string) (string, int) {
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n > 1 {
			return name[:i], n
		}
	}
	return name, 1
}

// scriptedReplacement brings in the population's replacements/<name>/ for a `replace`.
func scriptedReplacement(s *session, pop *scripted.Population) func(replaces, name string) (orchestrate.Coder, error) {
	if len(pop.Replacements) == 0 {
		return nil // nothing to bring in: `replace` is neither offered nor taken
	}
	return func(replaces, name string) (orchestrate.Coder, error) {
		script, ok := pop.Replacement(name)
		if !ok {
			return nil, fmt.Errorf("population %s has no replacements/%s/ for the coder that replaces %s", pop.Dir, name, replaces)
		}
		return scripted.NewCoder(s.ws, s.opts.RunID, script), nil
	}
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
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

// pinSpec returns the spec the run started with, recording spec as that when the run is new.
func (s *session) pinSpec(spec string) (string, error) {
	ref := "refs/dixit/" + s.opts.RunID + "/spec"
	commit, pinned, err := s.ws.Ref(ref)
	if err != nil {
		return "", err
	}
	if pinned {
		files, err := s.ws.Files(commit)
		if err != nil {
			return "", fmt.Errorf("read the run's spec: %w", err)
		}
		if len(files) != 1 {
			return "", fmt.Errorf("read the run's spec: %d files where one was expected", len(files))
		}
		return string(files[0].Content), nil
	}
	tree, err := s.ws.WriteFiles([]gitstate.File{{Path: "spec.md", Content: []byte(spec)}})
	if err != nil {
		return "", err
	}
	if _, err := s.ws.CommitAfter(ref, "", tree, "spec"); err != nil {
		return "", err
	}
	return spec, nil
}
