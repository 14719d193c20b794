package languages

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPresetNames(t *testing.T) {
	assert.Equal(t, []string{"go", "python", "node", "typescript", "rust", "java", "maven"}, Names())
	for _, name := range Names() {
		c, ok := Preset(name)
		require.True(t, ok, name)
		assert.Contains(t, c.Path, "{id}")
		assert.Equal(t, name, c.Toolchain)
		assert.Equal(t, 60*time.Second, c.Timeout)
	}
	_, ok := Preset("cobol")
	assert.False(t, ok)
}

// TestPresetsProveTheirPasses: every preset names a report its runs must bring.
func TestPresetsProveTheirPasses(t *testing.T) {
	for _, name := range []string{"go", "python", "node"} {
		p, _ := Preset(name)
		assert.NoError(t, p.CheckReport(), name)
		assert.True(t, p.Proven(), "the %s preset must prove its passes", name)
	}
}
