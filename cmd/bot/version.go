package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/cli"
)

// releaseTag is the tag a release build was made from, set at link time by
// scripts/release.sh and the image's build (-ldflags "-X main.releaseTag=v1.2.3"): the
// Go toolchain stamps a tag only for go install …@v1.2.3, not for a build of a checkout.
// It must be a package variable for -X to set it; nothing assigns it at run time.
var releaseTag string

// version says which build this is (cli.Version).
func version() string { return cli.Version(releaseTag) }

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
