package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// releaseTag is the tag a release build was made from, set at link time by
// scripts/release.sh and the image's build (-ldflags "-X main.releaseTag=v1.2.3"): the
// Go toolchain stamps a tag only for go install …@v1.2.3, not for a build of a checkout.
// It must be a package variable for -X to set it; nothing assigns it at run time.
var releaseTag string

// version says which build this is, from what the Go toolchain stamped into the binary:
// the release's tag or else the module version (a tag when installed with go install
// …@v1.2.3), the VCS revision and whether the tree had uncommitted changes. go run stamps
// no revision.
func version() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(releaseTag, info, ok)
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

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version and VCS revision this binary was built from",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), version())
			return err
		},
	}
}
