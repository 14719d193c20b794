package cast

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var demo = filepath.Join("..", "..", "examples", "semver")

// The status comment lists the agents before the run opens: the population's when one is
// given, else those dixit.yml names.
func TestNamesComeFromThePopulationElseTheSettings(t *testing.T) {
	coders, testers := Names(demo, config.Settings{})
	assert.Equal(t, []string{"amber", "basil", "cedar", "dune", "ember"}, coders)
	assert.Len(t, testers, 3)

	s, err := config.Parse(nil)
	require.NoError(t, err)
	coders, testers = Names("", s)
	assert.Len(t, coders, len(s.Agents.Coders))
	assert.Len(t, testers, len(s.Agents.Testers))
}

// A scripted cast plays the population's scripts, and its probe is the population's file.
func TestAScriptedCastPlaysThePopulation(t *testing.T) {
	ws, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	c, err := Population(demo, Stage{Workshop: ws, Run: "r1", RunDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, KindScripted, c.Kind)
	assert.Len(t, c.Coders, 5)
	assert.Nil(t, c.NewCoder, "the demo has no replacements: replace is neither offered nor taken")

	content, by, reason, err := c.Prober(ci.Contract{})(context.Background(), &orchestrate.Result{})
	require.NoError(t, err)
	assert.NotEmpty(t, content)
	assert.Equal(t, "the scripted population (probe/)", by)
	assert.Empty(t, reason)

	_, err = Population(filepath.Join(t.TempDir(), "missing"), Stage{Workshop: ws})
	assert.Error(t, err)
}

// A live cast without a model client says what is missing instead of failing later.
func TestALiveCastNeedsAClient(t *testing.T) {
	_, err := Live(Play{}, Stage{})
	assert.ErrorContains(t, err, "a live run needs an LLM client")
}

// A replacement's generation gives it a seed of its own.
func TestGenerations(t *testing.T) {
	for name, want := range map[string]struct {
		stem string
		gen  int
	}{"dee": {"dee", 1}, "dee_3": {"dee", 3}, "dee_1": {"dee_1", 1}, "big_bird": {"big_bird", 1}, "big_bird_2": {"big_bird", 2}} {
		stem, gen := generationOf(name)
		assert.Equal(t, want.stem, stem, name)
		assert.Equal(t, want.gen, gen, name)
	}
}
