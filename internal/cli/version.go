package cli

import (
	"runtime/debug"
	"strings"
)

// Version says which build this is, from what the Go toolchain stamped into the binary:
// the release's tag (set at link time, "" for none) or else the module version (a tag
// when installed with go install …@v1.2.3), the VCS revision and whether the tree had
// uncommitted changes. go run stamps no revision.
func Version(tag string) string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(tag, info, ok)
}

func versionOf(tag string, info *debug.BuildInfo, ok bool) string {
	if !ok {
		return strings.TrimSpace("bot " + tag + " (no build information)")
	}
	v := info.Main.Version
	if tag != "" {
		v = tag
	}
	parts := []string{"bot", v}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if settings["vcs.modified"] == "true" {
			rev += " (modified)"
		}
		parts = append(parts, "revision "+rev)
		if at := settings["vcs.time"]; at != "" {
			parts = append(parts, "of "+at)
		}
	} else if v == "(devel)" || v == "" {
		parts = append(parts, "(no VCS revision: built with go run or -buildvcs=false)")
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}
