package app

import (
	"context"
	"errors"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// Runner carries the App's runs out: apprun.Executor on a server (server.New hands it to
// NewManager), a fake in tests. app reaches it only through the Manager, which executes
// runs and relays humans' decisions to them; apprun imports app for the words they share
// (Issue, ErrElsewhere), and app imports nothing of apprun.
type Runner interface {
	// Execute runs (or resumes) the protocol for an issue until it ends or ctx is
	// cancelled. It must be resumable: it is called again with the same issue after a
	// restart. ErrElsewhere says another server drives the run.
	Execute(ctx context.Context, issue Issue) error
	// Decide records a human's decision on the run of issue (onPR: the comment is on a
	// pull request, which may be the escalation PR of an issue) once it fits where the run
	// stopped; it returns the issue whose run it answers. The error, if any, says why in
	// words for the person who asked, and nothing changed; ErrNoDecisions: this runner
	// takes none.
	Decide(ctx context.Context, issue Issue, onPR bool, ask session.Ask) (Issue, orchestrate.Decision, error)
}

// ErrNoDecisions is a Runner's answer to a decision when it takes none.
var ErrNoDecisions = errors.New("this server does not take decisions on runs")

// ExecuteFunc is a Runner that only executes runs, and takes no decisions.
type ExecuteFunc func(ctx context.Context, issue Issue) error

// Execute calls f.
func (f ExecuteFunc) Execute(ctx context.Context, issue Issue) error { return f(ctx, issue) }

// Decide takes no decision.
func (ExecuteFunc) Decide(context.Context, Issue, bool, session.Ask) (Issue, orchestrate.Decision, error) {
	return Issue{}, orchestrate.Decision{}, ErrNoDecisions
}

// Decide relays a human's decision on the run of issue to the runner (Runner.Decide).
func (m *Manager) Decide(ctx context.Context, issue Issue, onPR bool, ask session.Ask) (Issue, orchestrate.Decision, error) {
	return m.runner.Decide(ctx, issue, onPR, ask)
}
