// Command bot is Dixit's one binary: `demo` runs the protocol offline on the bundled
// example, `run` runs it with live agents or a population, `serve` is the GitHub App.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/cli"
)

// The conventions every command shares (docs/cli.md), from internal/cli under the names
// the commands use.
var (
	usagef   = cli.Usagef
	noArgs   = cli.NoArgs
	existing = cli.Existing
)

const (
	fileOrDir = cli.FileOrDir
	aFile     = cli.AFile
	aDir      = cli.ADir
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(cli.ExitCode(err, os.Stderr))
}

// run parses args and runs the command they name.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRoot(os.Getenv)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.ExecuteContext(ctx)
}

// newRoot builds the command tree; getenv is the environment the commands read.
func newRoot(getenv func(string) string) *cobra.Command {
	root := &cobra.Command{
		Use:   "bot",
		Short: "Dixit: independent coders and testers, and only real test runs decide",
		Long: `Dixit treats a spec as the task for several independent coders, keeps a tester's test only
when most coders but not all pass it, and lets a human compare the implementations that agree.

Start with "bot demo": the whole protocol, offline, on the bundled example.`,
		Version:                    version(),
		SuggestionsMinimumDistance: 2,
		SilenceErrors:              true,
		SilenceUsage:               true,
		Args:                       cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				cmd.SetOut(cmd.ErrOrStderr())
				_ = cmd.Usage()
				return usagef(cmd, "missing command")
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return usagef(cmd, "%s", msg)
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// -v is --verbose on the commands that log; the version has no shorthand.
	root.Flags().Bool("version", false, "print the module version and VCS revision of this binary")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if hint := cli.FlagSuggestion(cmd, err); hint != "" {
			err = fmt.Errorf("%w%s", err, hint)
		}
		return &cli.UsageError{Cmd: cmd.CommandPath(), Err: err}
	})
	root.AddGroup(&cobra.Group{ID: "run", Title: "Runs:"}, &cobra.Group{ID: "app", Title: "On GitHub:"})
	for _, c := range []*cobra.Command{newDemo(getenv), newRun(getenv), newVet(getenv), newDecide(getenv), newEval(getenv), newDoctor(getenv)} {
		c.GroupID = "run"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newSetup(getenv), newServe(getenv), newClassify()} {
		c.GroupID = "app"
		root.AddCommand(c)
	}
	root.AddCommand(newVersion())
	cli.AddVerbose(root)
	return root
}
