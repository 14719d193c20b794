package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version says which build this is, from what the Go toolchain stamped into the binary:
// the module version (a tag when installed with go install …@v1.2.3), the VCS revision and
// whether the tree had uncommitted changes. go run stamps no revision.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "bot (no build information)"
	}
	parts := []string{"bot", info.Main.Version}
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
	} else if info.Main.Version == "(devel)" || info.Main.Version == "" {
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
