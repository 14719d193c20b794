package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseFlagsSetTheVersion builds bot the way scripts/release.sh links it and asks
// the binary: -X must name the variable version() reads.
func TestReleaseFlagsSetTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "bot")
	// Without -trimpath, so the compiled packages buildBot's build left are reused.
	out, err := exec.Command("go", "build", "-ldflags", "-X main.releaseTag=v9.8.7", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.Regexp(t, `^bot v9\.8\.7 .*go1\.\d+`, string(got))
}
