package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
)

// goWords must never reach a person reading a config error: they name our types or the
// YAML library's insides, not the file.
var goWords = []string{"config.", "time.Duration", "!!", "unmarshal", "yaml:", "struct", "float64", "int64", "[]string", "map["}

// TestMistakesReadPlainly pins the exact message for the mistakes people make in dixit.yml.
func TestMistakesReadPlainly(t *testing.T) {
	const name = ".github/dixit.yml"
	tests := []struct {
		name, yaml, want string
	}{
		{"typo at the top", "rerun: 3\n",
			`.github/dixit.yml line 1: unknown key "rerun"; did you mean "reruns"?`},
		{"typo in a section", "test:\n  preset: go\n  timeuot: 30s\n",
			`.github/dixit.yml line 3: unknown key "timeuot" in test; did you mean "timeout"?`},
		{"typo in a list entry", "agents:\n  coders:\n    - {name: ann, temprature: 0.3}\n",
			`.github/dixit.yml line 3: unknown key "temprature" in agents.coders[0]; did you mean "temperature"?`},
		{"capital letter", "Coders: 5\n",
			`.github/dixit.yml line 1: unknown key "Coders"; did you mean "coders"?`},
		{"dash for underscore", "max-rounds: 5\n",
			`.github/dixit.yml line 1: unknown key "max-rounds"; did you mean "max_rounds"?`},
		{"a key nowhere near any", "critics:\n  kinds: 2\n",
			`.github/dixit.yml line 2: unknown key "kinds" in critics; the keys here are general, copies`},
		{"duration without a unit", "test:\n  timeout: 30\n",
			`.github/dixit.yml line 2: test.timeout: must be a duration with a unit, such as 30s or 30m (got 30)`},
		{"duration with a unit Go lacks", "budget:\n  wall_time: 2d\n",
			`.github/dixit.yml line 2: budget.wall_time: must be a duration such as 90s, 5m or 1h (got "2d")`},
		{"duration in words", "test:\n  timeout: soon\n",
			`.github/dixit.yml line 2: test.timeout: must be a duration such as 90s, 5m or 1h (got "soon")`},
		{"negative count", "reruns: -5\n",
			`.github/dixit.yml line 1: reruns: must be between 1 and 1000 (got -5)`},
		{"negative budget", "budget:\n  tokens: -1\n",
			`.github/dixit.yml line 2: budget.tokens: must be 0 (no cap) or more (got -1)`},
		{"a word for a number", "coders: many\n",
			`.github/dixit.yml line 1: coders: must be a whole number (got "many")`},
		{"a fraction for a count", "coders: 4.5\n",
			`.github/dixit.yml line 1: coders: must be a whole number (got 4.5)`},
		{"a string where a list is wanted", "test:\n  preset: go\n  exclude: \"*_test.go\"\n",
			`.github/dixit.yml line 3: test.exclude: must be a list, such as [a, b] or lines that start with - (got "*_test.go")`},
		{"a list where a section is wanted", "critics:\n  - general\n",
			`.github/dixit.yml line 2: critics: must be a section of keys (got a list)`},
		{"a word where a section is wanted", "test: go\n",
			`.github/dixit.yml line 1: test: must be a section of keys (got "go")`},
		{"a list where names and values are wanted", "test:\n  preset: go\n  env: [A=1]\n",
			`.github/dixit.yml line 3: test.env: must be a section of names and values (got a list)`},
		{"unknown protocol", "protocol: vote\n",
			`.github/dixit.yml line 1: protocol: must be one of dixit, critics, tdg, blind, single (got "vote")`},
		{"unknown preset", "test:\n  preset: cobol\n",
			`.github/dixit.yml line 2: test.preset: unknown preset "cobol"; must be one of go, python, node, typescript, rust, java, maven`},
		{"a bool that is not one", "critics:\n  general: maybe\n",
			`.github/dixit.yml line 2: critics.general: must be true or false (got "maybe")`},
		{"threshold out of range", "ideal_threshold: 1.5\n",
			`.github/dixit.yml line 1: ideal_threshold: must be above 0.5 and below 1 (got 1.5)`},
		{"a key set twice", "coders: 5\ntesters: 3\ncoders: 7\n",
			`.github/dixit.yml line 3: coders: set twice (first on line 1)`},
		{"tab indentation", "test:\n\tpreset: go\n",
			`.github/dixit.yml line 2: indented with a tab; indent with spaces only`},
		{"bad indentation", "test:\n  preset: go\n timeout: 30s\n",
			`.github/dixit.yml line 3: this line does not line up with the keys above it, or text follows a closing quote`},
		{"indented under nothing", "coders: 3\n  testers: 2\n",
			`.github/dixit.yml line 2: a ":" cannot go here; check the indentation, or put a value that holds ": " in quotes`},
		{"unclosed quote", "test:\n  run: \"go test ./...\n  timeout: 30s\n",
			`.github/dixit.yml line 2: a quote that opens here is never closed`},
		{"unclosed list", "test:\n  exclude: [\"*_test.go\"\n",
			`.github/dixit.yml line 2: a [list] that opens here is not closed, or its items are not separated by commas`},
		{"a list for the whole file", "- coders: 5\n",
			`.github/dixit.yml line 1: the file must hold keys and values, one per line (got a list)`},
		{"two documents", "coders: 5\n---\ntesters: 3\n",
			`.github/dixit.yml line 2: a second document starts here, after "---"; the file must hold one`},
		{"a required key left out: the section's line", "test:\n  path: x_test.go\n",
			`.github/dixit.yml line 1: test.run: must be set: the command that runs one test`},
		{"a bad agent name: the entry's line", "coders: 3\nagents:\n  coders:\n    - {name: a}\n    - {name: B}\n    - {name: c}\n",
			`.github/dixit.yml line 5: agents.coders[1].name: must be lower-case letters, digits and _, at most 32 (got "B")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.ParseNamed(name, []byte(tc.yaml))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			for _, w := range goWords {
				assert.NotContains(t, err.Error(), w)
			}
		})
	}
}

// What looks like a mistake but is not one.
func TestForgivingSpellings(t *testing.T) {
	for _, tc := range []struct{ name, yaml string }{
		{"empty file", ""},
		{"only comments", "# all defaults\n"},
		{"a closing document marker", "coders: 5\n---\n"},
		{"a bool as yes", "critics:\n  general: yes\n"},
		{"zero needs no unit", "budget:\n  wall_time: 0\n"},
		{"a whole number written as a float", "budget:\n  tokens: 2e6\n"},
		{"an empty value keeps the default", "coders:\n"},
		{"aliases", "coders: &n 5\ntesters: *n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.yaml))
			assert.NoError(t, err)
		})
	}
	s, err := config.Parse([]byte("critics:\n  general: yes\nbudget:\n  tokens: 2e6\n"))
	require.NoError(t, err)
	assert.True(t, s.Critics.General)
	assert.Equal(t, 2_000_000, s.Budget.Tokens)
}

// Load names the file it read; Parse, which has none, names only the line.
func TestMistakesNameTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dixit.yml")
	require.NoError(t, os.WriteFile(p, []byte("coders: 5\nworker: 3\n"), 0o644))
	_, err := config.Load(p)
	assert.EqualError(t, err, p+` line 2: unknown key "worker"; the keys here are protocol, max_iterations, critics, coders, testers, reruns, ideal_threshold, max_tester_retries, max_coder_retries, max_rounds, parallel_agents, existing_tests, pick, vet_gate, test, agents, budget`)

	_, err = config.Parse([]byte("test:\n  timeout: 30\n"))
	assert.EqualError(t, err, "line 2: test.timeout: must be a duration with a unit, such as 30s or 30m (got 30)")
}
