package session

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemoIsFoundFromASubdirectory(t *testing.T) {
	got, err := findDemo()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("..", "..", "examples", "semver"), got)
}
