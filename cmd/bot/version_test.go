package main

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionShowsTheReleaseTag(t *testing.T) {
	built := func() *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-24T05:00:00Z"}}}
	}
	assert.Equal(t, "bot v1.2.3 revision 0123456789ab of 2026-11-24T05:00:00Z go1.26.8", versionOf("v1.2.3", built(), true))
	assert.Equal(t, "bot (devel) revision 0123456789ab of 2026-11-24T05:00:00Z go1.26.8", versionOf("", built(), true), "no tag: what the toolchain stamped")
	bare := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	assert.Equal(t, "bot v1.2.3 go1.26.8", versionOf("v1.2.3", bare, true), "a release built without VCS stamping is still named by its tag")
	assert.Contains(t, versionOf("", bare, true), "no VCS revision")
	assert.Equal(t, "bot v1.2.3 (no build information)", versionOf("v1.2.3", nil, false))
}

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
