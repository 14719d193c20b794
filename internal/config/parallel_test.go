package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
)

// parallel_agents bounds how many agents of a phase work at once; absent, all of them do.
func TestParallelAgents(t *testing.T) {
	s, err := config.Parse([]byte("coders: 5\n"))
	require.NoError(t, err)
	assert.Zero(t, s.ParallelAgents, "absent: every agent of a phase at once")

	s, err = config.Parse([]byte("parallel_agents: 1\n"))
	require.NoError(t, err)
	assert.Equal(t, 1, s.ParallelAgents, "one agent after the other, as the seed's loop")

	_, err = config.Parse([]byte("parallel_agents: -2\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parallel_agents")
	assert.Contains(t, err.Error(), "got -2")
}
