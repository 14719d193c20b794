package session

import (
	"context"
	"io"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/statusline"
)

// Host is what differs between the places a run is hosted: a terminal (bot run, bot
// vet, bot demo), the App (an issue or a pull request on GitHub) and an evaluation (bot
// eval). A session calls its host, always with the run's context; the host never calls
// back into the session, and keeps no context of its own.
type Host interface {
	// Judge makes the judge that classifies tests and runs the suite under contract, or
	// returns nil to judge in this machine's sandbox. Verdicts are cached in front of it.
	Judge(ctx context.Context, contract ci.Contract) (ci.Judge, error)
	// Attach is given the run's workshop once it is open and locked, before its journal
	// is read: the App adopts a run another server mirrored, and mirrors it as it goes.
	Attach(ctx context.Context, ws *gitstate.Workshop) error
	// Reporters are told every event of the protocol, besides the progress display.
	Reporters(ctx context.Context) []orchestrate.Reporter
	// Display is where progress shows: plain lines on out, and the status line, which
	// may be shared between runs. Either may be nil.
	Display(ctx context.Context) (out io.Writer, status *statusline.Display)
}

// Terminal hosts a run for a person at a terminal: this machine's sandbox judges, and
// progress shows on Out, with a status line of its own when Status is nil. The zero
// Terminal shows nothing.
type Terminal struct {
	Out    io.Writer
	Status *statusline.Display
}

var _ Host = Terminal{}

// Judge leaves the judging to this machine's sandbox.
func (Terminal) Judge(context.Context, ci.Contract) (ci.Judge, error) { return nil, nil }

// Attach has nothing to do: the run lives on this machine only.
func (Terminal) Attach(context.Context, *gitstate.Workshop) error { return nil }

// Reporters adds none: the display is the terminal's report.
func (Terminal) Reporters(context.Context) []orchestrate.Reporter { return nil }

// Display is the terminal.
func (t Terminal) Display(context.Context) (io.Writer, *statusline.Display) { return t.Out, t.Status }
