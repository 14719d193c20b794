// Package cast makes the agents that take part in a run: a scripted population standing
// in for the model (demos, tests, evaluations), or live LLM agents through a client, as
// dixit.yml describes them. The session that drives the run knows neither kind.
package cast

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/agent"
	"github.com/dixit-bot/dixit/internal/agent/scripted"
	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Kinds of cast, as the summary names them.
const (
	KindScripted = "scripted"
	KindLLM      = "llm"
)

// Cast is a run's agents.
type Cast struct {
	Kind     string // KindScripted or KindLLM
	Coders   []orchestrate.Coder
	Testers  []orchestrate.Tester
	Advisors []orchestrate.Advisor // critics, navigators, planners: the protocols other than dixit
	// NewCoder makes the fresh coder a human's `replace` brings in; nil when none can
	// be (a population without replacements).
	NewCoder func(replaces, name string) (orchestrate.Coder, error)
	// Instructions are the base's agent instruction files the live agents were given
	// (AGENTS.md …), and InstructionsSkipped those left out with why, for the report.
	Instructions        []string
	InstructionsSkipped []string
	probe               string // a scripted population's probe file ("" for none)
}

// Stage is where a cast plays: the run's workshop and id, and its directory for the
// live agents' work trees.
type Stage struct {
	Workshop *gitstate.Workshop
	Run      string
	RunDir   string
	Logger   *slog.Logger
}

// Load reads the scripted population in dir: its agents' scripts, and its own spec,
// settings, base and probe.
func Load(dir string) (*scripted.Population, error) { return scripted.Load(dir) }

// Population loads the scripted population in dir and casts it.
func Population(dir string, stage Stage) (*Cast, error) {
	pop, err := scripted.Load(dir)
	if err != nil {
		return nil, err
	}
	return Scripted(pop, stage), nil
}

// Scripted casts a loaded population.
func Scripted(pop *scripted.Population, stage Stage) *Cast {
	c := &Cast{Kind: KindScripted, probe: pop.Probe}
	for _, s := range pop.Coders {
		c.Coders = append(c.Coders, scripted.NewCoder(stage.Workshop, stage.Run, s))
	}
	for _, s := range pop.Testers {
		c.Testers = append(c.Testers, scripted.NewTester(stage.Workshop, stage.Run, s))
	}
	for _, s := range pop.Advisors {
		c.Advisors = append(c.Advisors, scripted.NewAdvisor(stage.Workshop, stage.Run, s))
	}
	if len(pop.Replacements) > 0 { // else `replace` is neither offered nor taken
		c.NewCoder = func(replaces, name string) (orchestrate.Coder, error) {
			script, ok := pop.Replacement(name)
			if !ok {
				return nil, fmt.Errorf("population %s has no replacements/%s/ for the coder that replaces %s", pop.Dir, name, replaces)
			}
			return scripted.NewCoder(stage.Workshop, stage.Run, script), nil
		}
	}
	return c
}

// Play is what live agents are given: the client, the spec, the settings, the base
// commit, and the sandbox their commands run in.
type Play struct {
	Client   llm.Client
	Spec     string
	Settings config.Settings
	Base     string // the base revision's commit in the workshop
	Runner   workspace.Runner
}

// Live casts the agents dixit.yml names, talking to a model through play.Client.
func Live(play Play, stage Stage) (*Cast, error) {
	if play.Client == nil {
		return nil, fmt.Errorf("a live run needs an LLM client")
	}
	cfg := play.Settings
	baseDir := filepath.Join(stage.RunDir, "work", "base")
	if err := os.RemoveAll(baseDir); err != nil {
		return nil, fmt.Errorf("prepare base checkout: %w", err)
	}
	if err := stage.Workshop.Checkout(play.Base, baseDir); err != nil {
		return nil, err
	}
	common := agent.Options{
		Client: play.Client, Model: cfg.Agents.Model, MaxSteps: cfg.Agents.MaxSteps, TurnTimeout: cfg.Agents.TurnTimeout,
		Spec: play.Spec, Tools: cfg.Agents.Tools, Workshop: stage.Workshop, Run: stage.Run, Logger: stage.Logger,
	}
	c := &Cast{Kind: KindLLM}
	if !cfg.Agents.SkipRepoInstructions {
		files, skipped, err := agent.ReadInstructions(baseDir)
		if err != nil {
			return nil, err
		}
		common.Instructions, c.InstructionsSkipped = files, skipped
		for _, f := range files {
			c.Instructions = append(c.Instructions, f.Path)
		}
	}
	newCoder := func(settings config.AgentSettings) (orchestrate.Coder, error) {
		o := common
		o.Settings = settings
		dir := filepath.Join(stage.RunDir, "work", "coders", settings.Name)
		if cfg.Agents.CoderCommand != "" {
			return agent.NewExternal(agent.ExternalOptions{Options: o, Command: cfg.Agents.CoderCommand,
				Timeout: cfg.Agents.CommandTimeout, Dir: dir, Base: play.Base})
		}
		return agent.NewCoder(o, dir, play.Base, play.Runner)
	}
	for _, settings := range cfg.Agents.Coders {
		coder, err := newCoder(settings)
		if err != nil {
			return nil, err
		}
		c.Coders = append(c.Coders, coder)
	}
	// A replacement keeps the replaced coder's settings (its persona, temperature,
	// model) with a seed of its own, so it samples afresh.
	c.NewCoder = func(replaces, name string) (orchestrate.Coder, error) {
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
			return nil, err
		}
		c.Testers = append(c.Testers, t)
	}
	advisors, err := liveAdvisors(common, cfg)
	if err != nil {
		return nil, err
	}
	c.Advisors = advisors
	return c, nil
}

// liveAdvisors are the agents the protocols other than dixit add: a navigator (tdg), a
// planner (blind), or one critic per kind (critics).
func liveAdvisors(common agent.Options, cfg config.Settings) ([]orchestrate.Advisor, error) {
	var out []orchestrate.Advisor
	if cfg.Protocol == config.ProtocolTDG || cfg.Protocol == config.ProtocolBlind {
		o := common
		newAdvisor, name := agent.NewNavigator, "navigator"
		if cfg.Protocol == config.ProtocolBlind {
			newAdvisor, name = agent.NewPlanner, "planner"
		}
		o.Settings = config.AgentSettings{Name: name, Temperature: cfg.Agents.Coders[0].Temperature}
		a, err := newAdvisor(o)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if cfg.Protocol == config.ProtocolCritics {
		for _, kind := range cfg.Critics.Kinds() {
			o := common
			o.Settings = config.AgentSettings{Name: "critic_" + kind, Temperature: cfg.Agents.Coders[0].Temperature}
			critic, err := agent.NewCritic(o, kind)
			if err != nil {
				return nil, err
			}
			out = append(out, critic)
		}
	}
	return out, nil
}

// CutComments are the comments (HTML comments, in a spec written in Markdown) cut from a
// spec before any agent reads it.
func CutComments(spec string) []string {
	_, cut := agent.VisibleSpec(spec)
	return cut
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

// Names lists the coders and testers a run will have, for a status display before the
// run opens: the population's when one is given, else those the settings name.
func Names(population string, s config.Settings) (coders, testers []string) {
	if population != "" {
		if pop, err := scripted.Load(population); err == nil {
			for _, c := range pop.Coders {
				coders = append(coders, c.Name)
			}
			for _, t := range pop.Testers {
				testers = append(testers, t.Name)
			}
			return coders, testers
		}
	}
	for _, c := range s.Agents.Coders {
		coders = append(coders, c.Name)
	}
	for _, t := range s.Agents.Testers {
		testers = append(testers, t.Name)
	}
	return coders, testers
}

// Client is the model live agents talk to (package llm): the session that drives a run
// hands it on without knowing models.
type Client = llm.Client

// Agents say who plays a run: the scripted population in Population when it is set (a
// demo, a test), else live agents through Client.
type Agents struct {
	Client     llm.Client
	Population string
}
