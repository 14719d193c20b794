package cli

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
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
