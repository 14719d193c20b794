package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/strictyaml"
)

// Agents configure live LLM agents. Diversity matters to the Dixit rule: coders that share
// one model, temperature and outlook make correlated mistakes. The settings here vary them
// without ever telling an agent why.
type Agents struct {
	Model       string          `json:"model"`        // default model of every agent
	MaxSteps    int             `json:"max_steps"`    // model calls per turn (tool loop) before the turn ends
	TurnTimeout time.Duration   `json:"turn_timeout"` // one turn of a live agent, tools included
	Price       Price           `json:"price"`
	Coders      []AgentSettings `json:"coders"`
	Testers     []AgentSettings `json:"testers"`
	// Tools is how the agents' tool calls are read: ToolsAuto, ToolsNative or ToolsText.
	Tools string `json:"tools"`
	// CoderCommand, when set, makes every coder an external coding agent: this command
	// runs in the coder's working copy with the prompt on stdin.
	CoderCommand   string        `json:"coder_command,omitempty"`
	CommandTimeout time.Duration `json:"command_timeout,omitempty"`
	// SkipRepoInstructions: agents.repo_instructions is false, so the base's AGENTS.md
	// and .github/copilot-instructions.md are not given to the agents (they are by
	// default, as data beside the spec).
	SkipRepoInstructions bool `json:"skip_repo_instructions,omitempty"`
}

// How the agents' tool calls are read (agents.tools).
const (
	// ToolsAuto takes the server's tool calls and the calls a model wrote as text (JSON,
	// a ```json fence, <tool_call> tags), as many local models do, and turns an agent to
	// ToolsText when the endpoint refuses a request because it offers tools.
	ToolsAuto = "auto"
	// ToolsNative takes the server's tool calls only: text stays text.
	ToolsNative = "native"
	// ToolsText is for models without tool calling: no tools are offered, and files and
	// tests are written as fenced blocks (docs/agents.md, "Models without tool calling").
	ToolsText = "text"
)

// ToolModes lists the values of agents.tools.
var ToolModes = []string{ToolsAuto, ToolsNative, ToolsText}

// AgentSettings are one agent's model and sampling settings. Persona and Direction are
// folded into its instructions as plain working preferences.
type AgentSettings struct {
	Name        string  `json:"name" yaml:"name"`
	Model       string  `json:"model,omitempty" yaml:"model"`
	Temperature float32 `json:"temperature" yaml:"temperature"`
	Seed        int     `json:"seed" yaml:"seed"`
	Persona     string  `json:"persona,omitempty" yaml:"persona"`
	Direction   string  `json:"direction,omitempty" yaml:"direction"`
}

// Price is what a million tokens cost in US dollars, for estimates; zero means unknown.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
}

type agentsFile struct {
	Model            *string          `yaml:"model"`
	MaxSteps         *int             `yaml:"max_steps"`
	TurnTimeout      *time.Duration   `yaml:"turn_timeout"`
	Price            *Price           `yaml:"price"`
	Coders           []*AgentSettings `yaml:"coders"`
	Testers          []*AgentSettings `yaml:"testers"`
	Tools            *string          `yaml:"tools"`
	CoderCommand     *string          `yaml:"coder_command"`
	CommandTimeout   *time.Duration   `yaml:"command_timeout"`
	RepoInstructions *bool            `yaml:"repo_instructions"`
}

var (
	coderNames  = []string{"amber", "basil", "cedar", "dune", "ember", "fern", "gale", "heath", "iris"}
	testerNames = []string{"ivy", "jun", "kai", "lark", "moss", "nell", "oak"}
	personas    = []string{
		"You are a careful engineer who prefers small, obvious code.",
		"You are a pragmatic engineer who reads the specification twice before writing code.",
		"You are a meticulous engineer who handles every edge case the specification mentions.",
		"You are an experienced engineer who likes to model the problem with clear data types.",
		"You are a thorough engineer who checks each rule of the specification against an example.",
	}
	directions = []string{
		"Start with the most direct implementation and refine it.",
		"Parse the input into a small structure first, then work on the structure.",
		"Write your own quick checks for the examples in the specification as you go.",
		"Go through the specification rule by rule and implement each one in order.",
		"Prefer the standard library's facilities wherever they fit.",
	}
	coderTemperatures = []float32{0.2, 0.5, 0.8, 0.4, 0.7}
)

// defaultAgents gives n coders and m testers distinct names, seeds, temperatures,
// personas and directions.
func defaultAgents(n, m int) Agents {
	a := Agents{Model: "gpt-4o-mini", MaxSteps: 40, TurnTimeout: 20 * time.Minute, Tools: ToolsAuto}
	for i := 0; i < n; i++ {
		a.Coders = append(a.Coders, AgentSettings{
			Name: pick(coderNames, i, "coder"), Temperature: coderTemperatures[i%len(coderTemperatures)],
			Seed: 1000 + i, Persona: personas[i%len(personas)], Direction: directions[i%len(directions)],
		})
	}
	for i := 0; i < m; i++ {
		a.Testers = append(a.Testers, AgentSettings{Name: pick(testerNames, i, "tester"), Temperature: 0.7, Seed: 2000 + i})
	}
	return a
}

func pick(names []string, i int, prefix string) string {
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s%d", prefix, i+1)
}

// applyAgents merges the file's agents section into the defaults for the final counts.
func applyAgents(s *Settings, f *agentsFile) error {
	s.Agents = defaultAgents(s.Coders, s.Testers)
	if f == nil {
		return nil
	}
	if f.Model != nil {
		s.Agents.Model = *f.Model
	}
	if f.MaxSteps != nil {
		s.Agents.MaxSteps = *f.MaxSteps
	}
	if f.TurnTimeout != nil {
		s.Agents.TurnTimeout = *f.TurnTimeout
	}
	if f.Price != nil {
		s.Agents.Price = *f.Price
	}
	if f.Tools != nil {
		s.Agents.Tools = *f.Tools
	}
	if f.CoderCommand != nil {
		s.Agents.CoderCommand = *f.CoderCommand
	}
	if f.CommandTimeout != nil {
		s.Agents.CommandTimeout = *f.CommandTimeout
	}
	if f.RepoInstructions != nil {
		s.Agents.SkipRepoInstructions = !*f.RepoInstructions
	}
	if err := mergeAgents("agents.coders", "coders", s.Agents.Coders, f.Coders); err != nil {
		return err
	}
	return mergeAgents("agents.testers", "testers", s.Agents.Testers, f.Testers)
}

func mergeAgents(key, countKey string, into []AgentSettings, from []*AgentSettings) error {
	if from == nil {
		return nil
	}
	if len(from) != len(into) {
		return strictyaml.Errorf(key, "lists %d agents but %s is %d; list exactly %d, or none", len(from), countKey, len(into), len(into))
	}
	for i, a := range from {
		if a == nil {
			return strictyaml.Errorf(fmt.Sprintf("%s[%d]", key, i), "empty entry; give at least one key, such as name")
		}
		d := into[i]
		if a.Name == "" {
			a.Name = d.Name
		}
		if a.Seed == 0 {
			a.Seed = d.Seed
		}
		into[i] = *a
	}
	return nil
}

var agentNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

func (a Agents) validate() error {
	if a.Model == "" {
		return strictyaml.Errorf("agents.model", "must name a model")
	}
	if a.MaxSteps < 1 || a.MaxSteps > 500 {
		return strictyaml.Errorf("agents.max_steps", "must be between 1 and 500 (got %d)", a.MaxSteps)
	}
	if a.TurnTimeout < time.Second || a.TurnTimeout > 24*time.Hour {
		return strictyaml.Errorf("agents.turn_timeout", "must be between 1s and 24h (got %s)", a.TurnTimeout)
	}
	if !slices.Contains(ToolModes, a.Tools) {
		return strictyaml.Errorf("agents.tools", "must be one of %s (got %q)", strings.Join(ToolModes, ", "), a.Tools)
	}
	if a.CommandTimeout < 0 || a.CommandTimeout > 24*time.Hour {
		return strictyaml.Errorf("agents.command_timeout", "must be between 0 (default 30m) and 24h (got %s)", a.CommandTimeout)
	}
	if a.Price.Input < 0 {
		return strictyaml.Errorf("agents.price.input", "must be 0 (unknown) or more (got %g)", a.Price.Input)
	}
	if a.Price.Output < 0 {
		return strictyaml.Errorf("agents.price.output", "must be 0 (unknown) or more (got %g)", a.Price.Output)
	}
	seen := map[string]bool{}
	for key, list := range map[string][]AgentSettings{"agents.coders": a.Coders, "agents.testers": a.Testers} {
		for i, s := range list {
			switch {
			case !agentNameRE.MatchString(s.Name):
				return strictyaml.Errorf(fmt.Sprintf("%s[%d].name", key, i), "must be lower-case letters, digits and _, at most 32 (got %q)", s.Name)
			case seen[s.Name]:
				return strictyaml.Errorf(fmt.Sprintf("%s[%d].name", key, i), "%q is used twice; every agent needs its own name", s.Name)
			case s.Temperature < 0 || s.Temperature > 2:
				return strictyaml.Errorf(fmt.Sprintf("%s[%d].temperature", key, i), "must be between 0 and 2 (got %g)", s.Temperature)
			case len(s.Persona) > 2000 || len(s.Direction) > 2000:
				return strictyaml.Errorf(fmt.Sprintf("%s[%d]", key, i), "persona and direction are at most 2000 characters")
			}
			seen[s.Name] = true
		}
	}
	return nil
}

// Models lists the distinct models the settings name: agents.model, then the per-agent
// ones.
func (s Settings) Models() []string {
	out := []string{s.Agents.Model}
	for _, a := range slices.Concat(s.Agents.Coders, s.Agents.Testers) {
		if a.Model != "" && !slices.Contains(out, a.Model) {
			out = append(out, a.Model)
		}
	}
	return out
}
