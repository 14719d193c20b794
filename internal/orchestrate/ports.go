package orchestrate

import (
	"context"

	"github.com/dixit-bot/dixit/internal/ci"
)

// Turn is one request to an agent.
type Turn struct {
	// Message is what the orchestrator says; it never mentions other agents or a game.
	Message string
	// Draw counts this agent's requests so far, this one included, rolled-back ones too:
	// after a rollback an agent must produce a fresh sample, not the same words.
	Draw int
}

// Checkpoint names a saved agent state (its history and its workspace).
type Checkpoint string

// Agent is what coders and testers have in common: a history that can be told things,
// saved and restored. Restore must not undo anything outside the agent. The agents of a
// phase are called at once, each from its own goroutine; one agent never from two.
type Agent interface {
	Name() string
	// Tell appends a message to the agent's history without asking for a reply.
	Tell(ctx context.Context, message string) error
	Save(ctx context.Context) (Checkpoint, error)
	Restore(ctx context.Context, cp Checkpoint) error
}

// Coder writes an implementation of the spec in its own workspace.
type Coder interface {
	Agent
	// Solve asks for a (new) solution and returns the commit of the coder's workspace.
	Solve(ctx context.Context, turn Turn) (commit string, err error)
	// Workspace returns the commit of the workspace as it is now (after a Restore, too).
	Workspace(ctx context.Context) (commit string, err error)
}

// Proposal is a tester's answer: one test file, or nothing when it has no more to offer.
type Proposal struct {
	Content []byte
	// Path is where the tester put the file in the repository, one of the places the
	// test contract allows (it checks); empty means the contract's default place.
	Path string `json:",omitempty"`
	// Select, for a test made as a diff of an existing test file (ci.ApplyTestDiff), are
	// the node ids of the tests it adds or changes: only those run. Content is then the
	// whole file, patched.
	Select []string `json:",omitempty"`
	None   bool
}

// Tester proposes tests for the spec, one at a time.
type Tester interface {
	Agent
	Propose(ctx context.Context, turn Turn) (Proposal, error)
}

// Advisor answers in words: a critic's review, a navigator's analysis, a test plan. It
// writes no code and no test file.
type Advisor interface {
	Agent
	Answer(ctx context.Context, turn Turn) (string, error)
}

// File is one file of a workspace.
type File struct {
	Path    string
	Content []byte
}

// Store turns workspace commits into trees the judge can run, and reads their files
// (the protocols whose critics read code, or that run a coder's own tests).
type Store interface {
	Tree(ctx context.Context, commit string) (ci.Tree, error)
	Files(ctx context.Context, commit string) ([]File, error)
}

// Guard holds a coder's tree to the tests the repository already had that pass on the
// base revision (the regression set). A coder must keep them passing as well as the
// vetted suite; it is told which one fails, since it can read them anyway.
type Guard interface {
	// Regressions lists the existing tests the tree breaks, each with why; nil when it
	// breaks none. A tree whose dependencies cannot be installed gets one Regression with
	// no Test and the installer's output as Reason. An error is the judge's own failure.
	Regressions(ctx context.Context, coder string, tree ci.Tree) ([]ci.Regression, error)
}

// Journal is the durable, append-only record of a run's effects.
type Journal interface {
	Entries() ([][]byte, error)
	Append(record []byte) error
}

// Reporter is told every protocol event, replayed ones included, in order, one at a time.
type Reporter interface {
	Event(ctx context.Context, ev Event)
}
