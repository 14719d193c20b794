// Package config reads dixit.yml, the run settings of a repository or a population. It is
// strict: an unknown key or a bad value is an error that names the line and the key.
package config

import (
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	pickrule "github.com/dixit-bot/dixit/internal/pick"
	"github.com/dixit-bot/dixit/internal/strictyaml"
)

// Protocols a run can follow (DESIGN.md §2).
const (
	ProtocolDixit   = "dixit"
	ProtocolCritics = "critics"
	ProtocolTDG     = "tdg"
	ProtocolBlind   = "blind"
	ProtocolSingle  = "single"
)

// Protocols lists the protocols in the order the docs present them.
var Protocols = []string{ProtocolDixit, ProtocolCritics, ProtocolTDG, ProtocolBlind, ProtocolSingle}

// Settings are the protocol constants and the test contract of a run.
type Settings struct {
	// Protocol is how the agents work together: dixit (the default), or one of the
	// seeds' other systems, run for comparison.
	Protocol string `json:"protocol"`
	// MaxIterations caps the loops of the other protocols (fix and recheck).
	MaxIterations    int         `json:"max_iterations"`
	Critics          Critics     `json:"critics"`
	Coders           int         `json:"coders"`
	Testers          int         `json:"testers"`
	Reruns           int         `json:"reruns"`
	IdealThreshold   float64     `json:"ideal_threshold"`
	MaxTesterRetries int         `json:"max_tester_retries"`
	MaxCoderRetries  int         `json:"max_coder_retries"`
	MaxRounds        int         `json:"max_rounds"`
	Test             ci.Contract `json:"test"`
	Agents           Agents      `json:"agents"` // live LLM agents only
	Budget           Budget      `json:"budget"`
	ParallelAgents   int         `json:"parallel_agents,omitempty"` // agents of a phase at once; 0: all
	// ExistingTests says which of the repository's own tests a coder must keep passing:
	// "affected" (those of the packages its change touches and their dependents, where
	// the language tells; all of them elsewhere), "all", or "off".
	ExistingTests string `json:"existing_tests,omitempty"`
	// Pick names the rule that picks the implementation an escalation pull request is
	// built from (internal/pick): hybrid (the default) or most_tests.
	Pick string `json:"pick,omitempty"`
	// VetGate says which tests a patch under review must pass (bot vet): "threshold"
	// (the default: the vetted suite and every other proposed test that at least
	// IdealThreshold of the final implementations pass) or "vetted" (the vetted suite
	// only). docs/real-patches.md has the measurements that chose the defaults.
	VetGate string `json:"vet_gate,omitempty"`
}

// The settings of vet_gate.
const (
	VetGateThreshold = "threshold"
	VetGateVetted    = "vetted"
)

// Critics configures the critics protocol (seed 003): a design, a correctness and a
// syntax critic, Copies of each, or Copies general critics.
type Critics struct {
	General bool `json:"general"`
	Copies  int  `json:"copies"`
}

// Kinds lists the critics' names in review order.
func (c Critics) Kinds() []string {
	kinds := []string{"design", "correctness", "syntax"}
	if c.General {
		kinds = []string{"general"}
	}
	var out []string
	for _, k := range kinds {
		for i := 1; i <= c.Copies; i++ {
			name := k
			if i > 1 {
				name = fmt.Sprintf("%s%d", k, i)
			}
			out = append(out, name)
		}
	}
	return out
}

// Defaults are the seeds' constants; the test contract defaults to the Go preset.
// The settings of existing_tests.
const (
	ExistingAffected = "affected"
	ExistingAll      = "all"
	ExistingOff      = "off"
)

func Defaults() Settings {
	contract, _ := languages.Preset("go")
	return Settings{
		Protocol: ProtocolDixit, MaxIterations: 8, Critics: Critics{Copies: 1},
		Coders: 5, Testers: 3, Reruns: 20, IdealThreshold: 0.6,
		MaxTesterRetries: 3, MaxCoderRetries: 3, MaxRounds: 20, Test: contract, ExistingTests: ExistingAffected,
		Pick: pickrule.Default, VetGate: VetGateThreshold,
		Agents: defaultAgents(5, 3),
	}
}

// file mirrors dixit.yml; pointers tell "absent" from "zero".
type file struct {
	Protocol      *string `yaml:"protocol"`
	MaxIterations *int    `yaml:"max_iterations"`
	Critics       *struct {
		General *bool `yaml:"general"`
		Copies  *int  `yaml:"copies"`
	} `yaml:"critics"`
	Coders           *int     `yaml:"coders"`
	Testers          *int     `yaml:"testers"`
	Reruns           *int     `yaml:"reruns"`
	IdealThreshold   *float64 `yaml:"ideal_threshold"`
	MaxTesterRetries *int     `yaml:"max_tester_retries"`
	MaxCoderRetries  *int     `yaml:"max_coder_retries"`
	MaxRounds        *int     `yaml:"max_rounds"`
	ParallelAgents   *int     `yaml:"parallel_agents"`
	ExistingTests    *string  `yaml:"existing_tests"`
	Pick             *string  `yaml:"pick"`
	VetGate          *string  `yaml:"vet_gate"`
	Test             *struct {
		Preset         *string           `yaml:"preset"`
		Path           *string           `yaml:"path"`
		Exclude        []string          `yaml:"exclude"`
		Paths          []string          `yaml:"paths"`
		Build          *string           `yaml:"build"`
		Run            *string           `yaml:"run"`
		Report         *string           `yaml:"report"`
		Probe          *string           `yaml:"probe"`
		Timeout        *time.Duration    `yaml:"timeout"`
		BuildTimeout   *time.Duration    `yaml:"build_timeout"`
		Toolchain      *string           `yaml:"toolchain"`
		Prepare        *string           `yaml:"prepare"`
		PrepareTimeout *time.Duration    `yaml:"prepare_timeout"`
		Manifests      []string          `yaml:"manifests"`
		Memory         *string           `yaml:"memory"`
		ToolchainPath  *string           `yaml:"toolchain_path"`
		Env            map[string]string `yaml:"env"`
		Tripwires      *bool             `yaml:"tripwires"`
		Requires       []string          `yaml:"requires"`
	} `yaml:"test"`
	Agents *agentsFile `yaml:"agents"`
	Budget *Budget     `yaml:"budget"`
}

// pythonModule is a dotted Python module name: what test.requires may hold (it goes into
// the preflight's script).
var pythonModule = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// maxFileSize bounds what we read: a config is a few hundred bytes.
const maxFileSize = 64 << 10

// Load reads and validates a dixit.yml file. Its errors name the file and the line.
func Load(name string) (Settings, error) {
	f, err := os.Open(name)
	if err != nil {
		return Settings{}, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Settings{}, fmt.Errorf("read %s: %w", name, err)
	}
	return ParseNamed(name, data)
}

// Parse validates dixit.yml content and fills in defaults for absent keys. Its errors
// name the line but no file; ParseNamed names one.
func Parse(data []byte) (Settings, error) {
	return ParseNamed("", data)
}

// ParseNamed is Parse for content read from name (such as ".github/dixit.yml"), which
// its errors name.
func ParseNamed(name string, data []byte) (Settings, error) {
	if len(data) > maxFileSize {
		return Settings{}, &strictyaml.Error{File: name, Err: fmt.Errorf("larger than %d bytes; settings fit in a few hundred", maxFileSize)}
	}
	var f file
	lines, err := strictyaml.Decode(name, data, &f)
	if err != nil {
		return Settings{}, err
	}
	s, err := f.settings()
	if err == nil {
		err = s.Validate()
	}
	if err == nil {
		err = applyAgents(&s, f.Agents)
	}
	if err == nil {
		err = s.Agents.validate()
	}
	if err != nil {
		return Settings{}, lines.Locate(name, err)
	}
	return s, nil
}

// settings lays the file over the defaults.
func (f file) settings() (Settings, error) {
	s := Defaults()
	setStr(&s.Protocol, f.Protocol)
	setInt(&s.MaxIterations, f.MaxIterations)
	if c := f.Critics; c != nil {
		if c.General != nil {
			s.Critics.General = *c.General
		}
		setInt(&s.Critics.Copies, c.Copies)
	}
	setInt(&s.Coders, f.Coders)
	setInt(&s.Testers, f.Testers)
	setInt(&s.Reruns, f.Reruns)
	setInt(&s.MaxTesterRetries, f.MaxTesterRetries)
	setInt(&s.MaxCoderRetries, f.MaxCoderRetries)
	setInt(&s.MaxRounds, f.MaxRounds)
	setInt(&s.ParallelAgents, f.ParallelAgents)
	setStr(&s.ExistingTests, f.ExistingTests)
	setStr(&s.Pick, f.Pick)
	setStr(&s.VetGate, f.VetGate)
	if f.IdealThreshold != nil {
		s.IdealThreshold = *f.IdealThreshold
	}
	if t := f.Test; t != nil {
		if t.Preset != nil {
			p, ok := languages.Preset(*t.Preset)
			if !ok {
				return Settings{}, strictyaml.Errorf("test.preset", "unknown preset %q; must be one of %s", *t.Preset, strings.Join(languages.Names(), ", "))
			}
			s.Test = p
		} else if t.Path != nil || t.Run != nil {
			s.Test = ci.Contract{Timeout: s.Test.Timeout, BuildTimeout: s.Test.BuildTimeout}
		}
		setStr(&s.Test.Path, t.Path)
		setStr(&s.Test.Build, t.Build)
		setStr(&s.Test.Run, t.Run)
		setStr(&s.Test.Report, t.Report)
		setStr(&s.Test.Probe, t.Probe)
		setStr(&s.Test.Toolchain, t.Toolchain)
		setStr(&s.Test.Prepare, t.Prepare)
		setStr(&s.Test.ToolchainPath, t.ToolchainPath)
		if t.Requires != nil {
			s.Test.Requires = t.Requires
		}
		if t.Tripwires != nil {
			s.Test.SkipTripwires = !*t.Tripwires
		}
		if t.PrepareTimeout != nil {
			s.Test.PrepareTimeout = *t.PrepareTimeout
		}
		if t.Manifests != nil {
			s.Test.Manifests = t.Manifests
		}
		if t.Memory != nil {
			n, err := ci.ParseBytes(*t.Memory)
			if err != nil {
				return Settings{}, strictyaml.Errorf("test.memory", "%v", err)
			}
			s.Test.Memory = n
		}
		if t.Exclude != nil {
			s.Test.Exclude = t.Exclude
		}
		if t.Paths != nil {
			s.Test.Paths = t.Paths
		}
		if t.Timeout != nil {
			s.Test.Timeout = *t.Timeout
		}
		if t.BuildTimeout != nil {
			s.Test.BuildTimeout = *t.BuildTimeout
		}
		if t.Env != nil {
			s.Test.Env = t.Env
		}
	}
	if f.Budget != nil {
		s.Budget = *f.Budget
	}
	return s, nil
}

// Validate checks the protocol's constants and the test contract and names the first bad
// key and what it allows (a *strictyaml.Error). Parse also checks the agents section,
// which only live runs use.
func (s Settings) Validate() error {
	checks := []struct {
		key string
		ok  bool
		why string
	}{
		{"protocol", slices.Contains(Protocols, s.Protocol), fmt.Sprintf("must be one of %s (got %q)", strings.Join(Protocols, ", "), s.Protocol)},
		{"coders", s.Coders >= minCoders(s.Protocol) && s.Coders <= 25, fmt.Sprintf("must be between %d and 25 for protocol %s (got %d)", minCoders(s.Protocol), s.Protocol, s.Coders)},
		{"testers", s.Testers >= minTesters(s.Protocol) && s.Testers <= 25, fmt.Sprintf("must be between %d and 25 for protocol %s (got %d)", minTesters(s.Protocol), s.Protocol, s.Testers)},
		{"max_iterations", s.MaxIterations >= 1 && s.MaxIterations <= 100, fmt.Sprintf("must be between 1 and 100 (got %d)", s.MaxIterations)},
		{"critics.copies", s.Critics.Copies >= 1 && s.Critics.Copies <= 5, fmt.Sprintf("must be between 1 and 5 (got %d)", s.Critics.Copies)},
		{"reruns", s.Reruns >= 1 && s.Reruns <= 1000, fmt.Sprintf("must be between 1 and 1000 (got %d)", s.Reruns)},
		{"ideal_threshold", s.IdealThreshold > 0.5 && s.IdealThreshold < 1, fmt.Sprintf("must be above 0.5 and below 1 (got %g)", s.IdealThreshold)},
		{"max_tester_retries", s.MaxTesterRetries >= 1 && s.MaxTesterRetries <= 50, fmt.Sprintf("must be between 1 and 50 (got %d)", s.MaxTesterRetries)},
		{"max_coder_retries", s.MaxCoderRetries >= 1 && s.MaxCoderRetries <= 50, fmt.Sprintf("must be between 1 and 50 (got %d)", s.MaxCoderRetries)},
		{"max_rounds", s.MaxRounds >= 1 && s.MaxRounds <= 1000, fmt.Sprintf("must be between 1 and 1000 (got %d)", s.MaxRounds)},
		{"existing_tests", slices.Contains([]string{ExistingAffected, ExistingAll, ExistingOff}, s.ExistingTests), fmt.Sprintf("must be affected, all or off (got %q)", s.ExistingTests)},
		{"pick", slices.Contains(pickrule.Names(), s.Pick), fmt.Sprintf("must be %s (got %q)", strings.Join(pickrule.Names(), " or "), s.Pick)},
		{"vet_gate", s.VetGate == VetGateThreshold || s.VetGate == VetGateVetted, fmt.Sprintf("must be threshold or vetted (got %q)", s.VetGate)},
		{"parallel_agents", s.ParallelAgents >= 0 && s.ParallelAgents <= 50, fmt.Sprintf("must be between 1 and 50, or 0 for every agent of a phase at once (got %d)", s.ParallelAgents)},
		{"test.path", safeRelPath(s.Test.Path), fmt.Sprintf("must be a relative path inside the repository (got %q)", s.Test.Path)},
		{"test.run", strings.TrimSpace(s.Test.Run) != "", "must be set: the command that runs one test"},
		{"test.timeout", s.Test.Timeout >= time.Second && s.Test.Timeout <= time.Hour, fmt.Sprintf("must be between 1s and 1h (got %s)", s.Test.Timeout)},
		{"test.build_timeout", s.Test.BuildTimeout == 0 || s.Test.BuildTimeout >= time.Second && s.Test.BuildTimeout <= time.Hour, fmt.Sprintf("must be between 1s and 1h (got %s)", s.Test.BuildTimeout)},
		{"test.prepare_timeout", s.Test.PrepareTimeout == 0 || s.Test.PrepareTimeout >= time.Second && s.Test.PrepareTimeout <= 2*time.Hour, fmt.Sprintf("must be between 1s and 2h (got %s)", s.Test.PrepareTimeout)},
		{"test.manifests", s.Test.Prepare == "" || len(s.Test.Manifests) > 0, "must list the files that say which dependencies to install (such as go.mod, package-lock.json) when test.prepare is set: the prepare runs only when one of them is there"},
		{"test.memory", s.Test.Memory == 0 || s.Test.Memory >= minMemory && s.Test.Memory <= maxMemory, fmt.Sprintf("must be between 64MiB and 1TiB (got %s)", ci.FormatBytes(s.Test.Memory))},
		{"test.toolchain_path", s.Test.ToolchainPath == "" || path.IsAbs(s.Test.ToolchainPath) && s.Test.Toolchain != "", fmt.Sprintf("must be the absolute path of the toolchain's command, such as /usr/bin/python3, with test.toolchain set (got %q)", s.Test.ToolchainPath)},
		{"test.toolchain", s.Test.Toolchain == "" || slices.Contains(languages.Names(), s.Test.Toolchain), fmt.Sprintf("must be %s or empty (got %q)", languages.List(), s.Test.Toolchain)},
	}
	for _, c := range checks {
		if !c.ok {
			return strictyaml.Errorf(c.key, "%s", c.why)
		}
	}
	if err := s.Test.CheckReport(); err != nil {
		key := "test.run" // a known format: what must change is how run writes it
		if !slices.Contains([]string{"", ci.ReportNone, ci.ReportTest2JSON, ci.ReportJUnit, ci.ReportTAP}, s.Test.Report) {
			key = "test.report"
		}
		return strictyaml.Errorf(key, "%v", err)
	}
	for _, m := range s.Test.Requires {
		if s.Test.Toolchain != "python" {
			return strictyaml.Errorf("test.requires", "names Python modules the toolchain must import; it needs the python toolchain (got %q)", s.Test.Toolchain)
		}
		if !pythonModule.MatchString(m) {
			return strictyaml.Errorf("test.requires", "want a Python module's name, such as mpmath or numpy.linalg (got %q)", m)
		}
	}
	for _, p := range s.Test.Manifests {
		if _, err := path.Match(p, ""); err != nil || !safeRelPath(p) {
			return strictyaml.Errorf("test.manifests", "bad pattern %q; patterns name files from the repository's root, such as go.mod or requirements*.txt", p)
		}
	}
	for _, p := range s.Test.Paths {
		if !doublestar.ValidatePattern(p) || !safeRelPath(strings.ReplaceAll(p, "*", "x")) {
			return strictyaml.Errorf("test.paths", "bad pattern %q; patterns name test files from the repository's root, where ** crosses directories, such as **/*_test.go or tests/**/test_*.py", p)
		}
	}
	for _, p := range s.Test.Exclude {
		if _, err := path.Match(p, ""); err != nil {
			return strictyaml.Errorf("test.exclude", "bad pattern %q; patterns look like *_test.go or testdata/*", p)
		}
	}
	for k := range s.Test.Env {
		if !envName.MatchString(k) {
			return strictyaml.Errorf("test.env", "bad variable name %q: use letters, digits and _, not starting with a digit", k)
		}
	}
	return s.Budget.validate()
}

// minCoders: the Dixit rule needs a majority that is not everyone; the other protocols
// need one coder (tdg samples as many as there are).
func minCoders(protocol string) int {
	if protocol == ProtocolDixit {
		return 3
	}
	return 1
}

// minTesters: only dixit and tdg ask testers for tests.
func minTesters(protocol string) int {
	if protocol == ProtocolDixit || protocol == ProtocolTDG {
		return 1
	}
	return 0
}

// The bounds of test.memory: below 64 MiB no runtime starts; above 1 TiB is a typo.
const (
	minMemory = 64 << 20
	maxMemory = 1 << 40
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func safeRelPath(p string) bool {
	q := strings.ReplaceAll(p, "{id}", "x")
	return q != "" && !path.IsAbs(q) && path.Clean(q) == q && !strings.HasPrefix(q, "../") && q != ".." && !strings.Contains(q, "\\")
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func setStr(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}
