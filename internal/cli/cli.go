// Package cli holds the conventions every command of the bot binary shares (docs/cli.md):
// the exit codes and the errors that choose them, usage errors that point at the
// command's help and suggest the flag meant, the check of a path a flag names, -v on
// every command and the commands' loggers, and the version string. cmd/bot defines the
// commands; this package is how they behave alike.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes, documented in docs/cli.md. Scripts tell a stopped run (it waits for a human's
// decision) and a failing patch from an error.
const (
	ExitError      = 1 // something went wrong; the message says what
	ExitUsage      = 2 // the command line is wrong: unknown command or flag, missing argument
	ExitStopped    = 3 // bot run: the run stopped for a human (bot decide answers it)
	ExitPatchFails = 4 // bot vet: the patch fails a vetted test
)

// ErrStopped ends `bot run` with ExitStopped once the outcome and the decisions that fit
// are printed: there is nothing more to say on stderr.
var ErrStopped = errors.New("the run stopped for a human: bot decide answers it")

// ErrEnvironment ends a run the judge could not start on this machine (outcome
// ENVIRONMENT): the outcome line says what to install or change.
var ErrEnvironment = errors.New("the judge cannot build and test the base revision here: change what the outcome above says, then run the same command again")

// ErrPatchFails ends `bot vet` with ExitPatchFails when the patch fails a vetted test.
var ErrPatchFails = errors.New("the patch fails vetted tests (see the report)")

// UsageError marks a mistake on the command line, answered with ExitUsage and a pointer
// to the command's help.
type UsageError struct {
	Cmd string // the command path, e.g. "bot run"
	Err error
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError of cmd, worded as fmt.Errorf words it.
func Usagef(cmd *cobra.Command, format string, args ...any) error {
	return &UsageError{Cmd: cmd.CommandPath(), Err: fmt.Errorf(format, args...)}
}

// ExitCode prints err for a person and returns the exit code it stands for.
func ExitCode(err error, stderr io.Writer) int {
	var usage *UsageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrStopped):
		return ExitStopped
	case errors.Is(err, ErrPatchFails):
		fmt.Fprintln(stderr, "bot:", err)
		return ExitPatchFails
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "bot: %v\nRun '%s --help' for usage.\n", err, usage.Cmd)
		return ExitUsage
	}
	fmt.Fprintln(stderr, "bot:", err)
	return ExitError
}

// NoArgs refuses positional arguments with the first one named.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef(cmd, "%s: unexpected argument %q (flags start with --)", cmd.Name(), args[0])
	}
	return nil
}
