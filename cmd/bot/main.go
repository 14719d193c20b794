// Command bot is Dixit's one binary: `demo` runs the protocol offline on the bundled
// example, `run` runs it with live agents or a population, `serve` is the GitHub App.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes, documented in docs/cli.md. Scripts tell a stopped run (it waits for a human's
// decision) and a failing patch from an error.
const (
	exitError      = 1 // something went wrong; the message says what
	exitUsage      = 2 // the command line is wrong: unknown command or flag, missing argument
	exitStopped    = 3 // bot run: the run stopped for a human (bot decide answers it)
	exitPatchFails = 4 // bot vet: the patch fails a vetted test
)

// errStopped ends `bot run` with exitStopped once the outcome and the decisions that fit
// are printed: there is nothing more to say on stderr.
var errStopped = errors.New("the run stopped for a human: bot decide answers it")

// errEnvironment ends a run the judge could not start on this machine (outcome
// ENVIRONMENT): the outcome line says what to install or change.
var errEnvironment = errors.New("the judge cannot build and test the base revision here: change what the outcome above says, then run the same command again")

// errPatchFails ends `bot vet` with exitPatchFails when the patch fails a vetted test.
var errPatchFails = errors.New("the patch fails vetted tests (see the report)")

// usageError marks a mistake on the command line, answered with exitUsage and a pointer to
// the command's help.
type usageError struct {
	cmd string // the command path, e.g. "bot run"
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err for a person and returns the exit code it stands for.
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errStopped):
		return exitStopped
	case errors.Is(err, errPatchFails):
		fmt.Fprintln(stderr, "bot:", err)
		return exitPatchFails
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "bot: %v\nRun '%s --help' for usage.\n", err, usage.cmd)
		return exitUsage
	}
	fmt.Fprintln(stderr, "bot:", err)
	return exitError
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
		if hint := flagSuggestion(cmd, err); hint != "" {
			err = fmt.Errorf("%w%s", err, hint)
		}
		return &usageError{cmd: cmd.CommandPath(), err: err}
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
	addVerbose(root)
	return root
}

// noArgs refuses positional arguments with the first one named.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef(cmd, "%s: unexpected argument %q (flags start with --)", cmd.Name(), args[0])
	}
	return nil
}

// pathKind is what a flag's path must name.
type pathKind int

const (
	fileOrDir pathKind = iota
	aFile
	aDir
)

// existing checks that the path a flag names exists and is of the kind wanted, so the
// error names the flag rather than whatever later failed to open it.
func existing(flag, path string, want pathKind) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--%s %s: no such file or directory", flag, path)
	case err != nil:
		return fmt.Errorf("--%s %s: %w", flag, path, errors.Unwrap(err))
	case want == aDir && !info.IsDir():
		return fmt.Errorf("--%s %s: not a directory", flag, path)
	case want == aFile && info.IsDir():
		return fmt.Errorf("--%s %s: a directory, not a file", flag, path)
	}
	return nil
}
