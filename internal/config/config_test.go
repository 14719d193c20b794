package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
)

func TestParseFillsDefaultsAndPresets(t *testing.T) {
	s, err := config.Parse([]byte("coders: 7\ntest:\n  preset: go\n  timeout: 45s\n"))
	require.NoError(t, err)
	assert.Equal(t, 7, s.Coders)
	assert.Equal(t, 3, s.Testers)
	assert.Equal(t, 20, s.Reruns)
	assert.InDelta(t, 0.6, s.IdealThreshold, 1e-9)
	assert.Equal(t, 45*time.Second, s.Test.Timeout)
	assert.Equal(t, "dixit_{id}_test.go", s.Test.Path)
	assert.Equal(t, "go", s.Test.Toolchain)
	assert.Equal(t, "hybrid", s.Pick, "the pick no other measured rule beats")
	assert.Equal(t, "threshold", s.VetGate, "the gate the measurements chose")

	s, err = config.Parse([]byte("pick: most_tests\nvet_gate: vetted\n"))
	require.NoError(t, err)
	assert.Equal(t, "most_tests", s.Pick)
	assert.Equal(t, "vetted", s.VetGate)

	empty, err := config.Parse(nil)
	require.NoError(t, err, "an empty file means every default")
	assert.Equal(t, config.Defaults(), empty)
}

func TestParseCustomContract(t *testing.T) {
	s, err := config.Parse([]byte(`
test:
  path: tests/test_dixit_{id}.py
  run: python3 -m pytest -q --junitxml={report} tests/test_dixit_{id}.py
  report: junit
  probe: python3 -m pytest -q -s tests/test_dixit_{id}.py
  timeout: 10s
  env:
    PYTHONHASHSEED: "0"
`))
	require.NoError(t, err)
	assert.Equal(t, "tests/test_dixit_{id}.py", s.Test.Path)
	assert.Empty(t, s.Test.Build, "a custom contract does not inherit the Go build")
	assert.Equal(t, "junit", s.Test.Report)
	assert.Equal(t, "python3 -m pytest -q -s tests/test_dixit_{id}.py", s.Test.Probe)
	assert.Equal(t, "0", s.Test.Env["PYTHONHASHSEED"])
}

func TestPrepareAndMemoryAreSetPerContract(t *testing.T) {
	s, err := config.Parse([]byte("test:\n  preset: node\n  memory: 4GiB\n  prepare_timeout: 20m\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(4<<30), s.Test.Memory)
	assert.Equal(t, 20*time.Minute, s.Test.PrepareTimeout)
	assert.Contains(t, s.Test.Prepare, "npm ci", "the preset installs from the lockfile")
	assert.Contains(t, s.Test.Manifests, "package-lock.json")

	s, err = config.Parse([]byte("test:\n  preset: python\n  toolchain_path: /usr/bin/python3\n"))
	require.NoError(t, err)
	assert.Equal(t, "/usr/bin/python3", s.Test.ToolchainPath)

	s, err = config.Parse([]byte("test:\n  preset: python\n  prepare: \"\"\n"))
	require.NoError(t, err)
	assert.Empty(t, s.Test.Prepare, "an empty prepare turns it off")

	s, err = config.Parse([]byte("test:\n  path: t_{id}.py\n  run: python3 t_{id}.py\n  prepare: python3 -m venv venv && venv/bin/pip install -r reqs.txt\n  manifests: [reqs.txt]\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"reqs.txt"}, s.Test.Manifests)

	for _, preset := range []string{"typescript", "rust", "java", "maven"} {
		s, err := config.Parse([]byte("test:\n  preset: " + preset + "\n"))
		require.NoError(t, err, preset)
		assert.Equal(t, preset, s.Test.Toolchain)
	}
}

func TestBadSettingsNameTheKey(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "coders: 5\nreruns_count: 3\n", `line 2: unknown key "reruns_count"; the keys here are protocol, max_iterations`},
		{"unknown nested key", "test:\n  preset: go\n  timeuot: 3s\n", `line 3: unknown key "timeuot" in test; did you mean "timeout"?`},
		{"too few coders", "coders: 2\n", "coders: must be between 3 and 25 for protocol dixit (got 2)"},
		{"unknown protocol", "protocol: vote\n", `protocol: must be one of dixit, critics, tdg, blind, single (got "vote")`},
		{"no coder", "protocol: single\ncoders: 0\n", "coders: must be between 1 and 25 for protocol single"},
		{"tdg needs a tester", "protocol: tdg\ntesters: 0\n", "testers: must be between 1 and 25 for protocol tdg"},
		{"iterations", "protocol: critics\nmax_iterations: 0\n", "max_iterations: must be between 1 and 100"},
		{"critic copies", "critics: {copies: 9}\n", "critics.copies: must be between 1 and 5"},
		{"unknown critics key", "critics: {kinds: 2}\n", `unknown key "kinds" in critics; the keys here are general, copies`},
		{"no testers", "testers: 0\n", "testers: must be between 1 and 25"},
		{"zero reruns", "reruns: 0\n", "reruns: must be between 1 and 1000"},
		{"threshold at a half", "ideal_threshold: 0.5\n", "ideal_threshold: must be above 0.5 and below 1"},
		{"threshold of one", "ideal_threshold: 1\n", "ideal_threshold: must be above 0.5"},
		{"wrong type", "coders: many\n", `coders: must be a whole number (got "many")`},
		{"bad duration", "test:\n  timeout: soon\n", `test.timeout: must be a duration such as 90s, 5m or 1h (got "soon")`},
		{"zero timeout", "test:\n  timeout: 0s\n", "test.timeout: must be between 1s and 1h"},
		{"unknown preset", "test:\n  preset: cobol\n", `test.preset: unknown preset "cobol"`},
		{"escaping path", "test:\n  path: ../x_{id}_test.go\n  run: true\n", "test.path: must be a relative path inside the repository"},
		{"absolute path", "test:\n  path: /etc/x\n  run: true\n", "test.path"},
		{"missing run", "test:\n  path: x_test.go\n", "test.run: must be set"},
		{"bad env name", "test:\n  preset: go\n  env:\n    \"A=B\": x\n", `test.env: bad variable name "A=B"`},
		{"bad exclude", "test:\n  preset: go\n  exclude: [\"[\"]\n", "test.exclude: bad pattern"},
		{"bad test paths", "test:\n  preset: go\n  paths: [\"**/[x\"]\n", `test.paths: bad pattern "**/[x"`},
		{"escaping test paths", "test:\n  preset: go\n  paths: [\"../**/*_test.go\"]\n", `test.paths: bad pattern "../**/*_test.go"`},
		{"unknown report", "test:\n  preset: go\n  report: xunit\n", `line 3: test.report: unknown report "xunit": want test2json, junit, tap or none`},
		{"report file not named", "test:\n  path: t_{id}.py\n  run: pytest t_{id}.py\n  report: junit\n", "line 3: test.run: report junit is read from a file: put {report} in run"},
		{"go run without the report", "test:\n  preset: go\n  run: ./dixit.test -test.count=1\n", "line 3: test.run: report test2json reads what a Go test binary prints with -test.v=test2json: add that flag to run"},
		{"not a mapping", "- 1\n- 2\n", "the file must hold keys and values"},
		{"retries", "max_coder_retries: 0\n", "max_coder_retries: must be between 1 and 50"},
		{"rounds", "max_rounds: -1\n", "max_rounds: must be between 1 and 1000"},
		{"requires outside python", "test:\n  preset: go\n  requires: [mpmath]\n", `line 3: test.requires: names Python modules the toolchain must import; it needs the python toolchain (got "go")`},
		{"requires a shell word", "test:\n  preset: python\n  requires: [\"mpmath; rm -rf /\"]\n", `test.requires: want a Python module's name, such as mpmath or numpy.linalg (got "mpmath; rm -rf /")`},
		{"pick", "pick: codet\n", `line 1: pick: must be hybrid or most_tests (got "codet")`},
		{"vet gate", "vet_gate: seed\n", `line 1: vet_gate: must be threshold or vetted (got "seed")`},
		{"memory without a unit", "test:\n  preset: node\n  memory: 4096\n", `line 3: test.memory: want a whole number and a unit, B, KiB, MiB, GiB or TiB, such as 4GiB (got "4096")`},
		{"memory in decimal units", "test:\n  preset: node\n  memory: 4GB\n", `test.memory: want a whole number and a unit`},
		{"too little memory", "test:\n  preset: node\n  memory: 1MiB\n", "line 3: test.memory: must be between 64MiB and 1TiB (got 1MiB)"},
		{"prepare without manifests", "test:\n  path: t_{id}.py\n  run: python3 t_{id}.py\n  prepare: pip install -r reqs.txt\n", "test.manifests: must list the files"},
		{"escaping manifest", "test:\n  preset: go\n  manifests: [../go.mod]\n", `test.manifests: bad pattern "../go.mod"`},
		{"relative toolchain path", "test:\n  preset: python\n  toolchain_path: python3\n", `line 3: test.toolchain_path: must be the absolute path of the toolchain's command, such as /usr/bin/python3`},
		{"unknown toolchain", "test:\n  preset: go\n  toolchain: cobol\n", `test.toolchain: must be go, python, node, typescript, rust, java or maven or empty (got "cobol")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dixit.yml")
	require.NoError(t, os.WriteFile(p, []byte("coders: 1\n"), 0o644))
	_, err := config.Load(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), p+" line 1: coders:")

	_, err = config.Load(filepath.Join(dir, "missing.yml"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	big := make([]byte, 70<<10)
	for i := range big {
		big[i] = '#'
	}
	require.NoError(t, os.WriteFile(p, big, 0o644))
	_, err = config.Load(p)
	assert.ErrorContains(t, err, "larger than")
}

func TestAgentsDefaultToDiverseCoders(t *testing.T) {
	s, err := config.Parse([]byte("coders: 5\n"))
	require.NoError(t, err)
	require.Len(t, s.Agents.Coders, 5)
	require.Len(t, s.Agents.Testers, 3)
	seen := map[string]bool{}
	temps := map[float32]bool{}
	for _, c := range s.Agents.Coders {
		seen[c.Name+c.Persona+c.Direction] = true
		temps[c.Temperature] = true
		assert.NotEmpty(t, c.Persona)
		assert.NotEmpty(t, c.Direction)
	}
	assert.Len(t, seen, 5, "every coder differs")
	assert.Greater(t, len(temps), 3)
}

func TestAgentsSection(t *testing.T) {
	s, err := config.Parse([]byte(`
coders: 3
testers: 1
agents:
  model: llama3.1
  price: {input: 0.5, output: 1.5}
  coders:
    - {name: ann, model: qwen2.5-coder, temperature: 0.1}
    - {temperature: 0.9, direction: "Use recursion."}
    - {name: cat}
`))
	require.NoError(t, err)
	assert.Equal(t, "llama3.1", s.Agents.Model)
	assert.Equal(t, "ann", s.Agents.Coders[0].Name)
	assert.Equal(t, "qwen2.5-coder", s.Agents.Coders[0].Model)
	assert.Equal(t, "basil", s.Agents.Coders[1].Name, "an unnamed coder keeps its default name")
	assert.Equal(t, "Use recursion.", s.Agents.Coders[1].Direction)
	assert.NotZero(t, s.Agents.Coders[2].Seed)

	for _, tc := range []struct{ yaml, want string }{
		{"coders: 3\nagents:\n  coders: [{name: a}]\n", "agents.coders: lists 1 agents but coders is 3"},
		{"coders: 3\nagents:\n  coders: [{name: a}, {name: a}, {name: b}]\n", `"a" is used twice`},
		{"agents:\n  testers: [{name: X}, {name: y}, {name: z}]\n", "agents.testers[0].name"},
		{"agents:\n  max_steps: 0\n", "agents.max_steps"},
		{"agents:\n  modle: x\n", `unknown key "modle" in agents; did you mean "model"?`},
		{"agents:\n  testers: [{name: a, temperature: 3}, {name: b}, {name: c}]\n", "temperature: must be between 0 and 2"},
	} {
		_, err := config.Parse([]byte(tc.yaml))
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// The other protocols run with fewer agents than the Dixit rule needs.
func TestOtherProtocolsTakeFewerAgents(t *testing.T) {
	s, err := config.Parse([]byte("protocol: critics\ncoders: 1\ntesters: 0\ncritics: {copies: 2}\nmax_iterations: 5\n"))
	require.NoError(t, err)
	assert.Equal(t, "critics", s.Protocol)
	assert.Equal(t, 5, s.MaxIterations)
	assert.Equal(t, []string{"design", "design2", "correctness", "correctness2", "syntax", "syntax2"}, s.Critics.Kinds())
	s, err = config.Parse([]byte("protocol: critics\ncoders: 1\ntesters: 0\ncritics: {general: true}\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"general"}, s.Critics.Kinds())
	d, err := config.Parse(nil)
	require.NoError(t, err)
	assert.Equal(t, "dixit", d.Protocol, "dixit by default")
}

// TestRepoInstructionsKey: the base's agent instructions are given unless dixit.yml
// turns them off, and the key takes only a boolean.
func TestRepoInstructionsKey(t *testing.T) {
	s, err := config.Parse([]byte("coders: 3\n"))
	require.NoError(t, err)
	assert.False(t, s.Agents.SkipRepoInstructions, "on by default")
	s, err = config.Parse([]byte("agents:\n  repo_instructions: false\n"))
	require.NoError(t, err)
	assert.True(t, s.Agents.SkipRepoInstructions)
	_, err = config.Parse([]byte("agents:\n  repo_instructions: sometimes\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "agents.repo_instructions")
}
