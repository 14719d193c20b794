package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
)

// TestAgentsTools: agents.tools says how the agents' tool calls are read; auto unless
// set, and a value it does not know names the key, the line and the choices.
func TestAgentsTools(t *testing.T) {
	s, err := config.Parse([]byte("coders: 3\n"))
	require.NoError(t, err)
	assert.Equal(t, config.ToolsAuto, s.Agents.Tools, "auto by default")

	for _, mode := range []string{"auto", "native", "text"} {
		s, err := config.Parse([]byte("agents:\n  tools: " + mode + "\n"))
		require.NoError(t, err, mode)
		assert.Equal(t, mode, s.Agents.Tools)
	}

	for yaml, want := range map[string]string{
		"agents:\n  model: m\n  tools: natve\n": `.github/dixit.yml line 3: agents.tools: must be one of auto, native, text (got "natve")`,
		"agents:\n  tools: \"\"\n":              `.github/dixit.yml line 2: agents.tools: must be one of auto, native, text (got "")`,
		"agents:\n  tools: [native]\n":          `.github/dixit.yml line 2: agents.tools:`,
		"agents:\n  tool: native\n":             `.github/dixit.yml line 2: unknown key "tool" in agents; did you mean "tools"?`,
	} {
		_, err := config.ParseNamed(".github/dixit.yml", []byte(yaml))
		require.Error(t, err, yaml)
		assert.Contains(t, err.Error(), want, yaml)
		for _, w := range goWords {
			assert.NotContains(t, err.Error(), w, yaml)
		}
	}
}
