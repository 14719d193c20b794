package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/agent/checkpoint"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var _ orchestrate.Coder = (*External)(nil)

// External is a coder played by an external coding agent: a command (a CLI coding agent,
// say) run in the coder's working copy with the prompt on stdin. Whatever the command
// leaves in the working copy is the solution. The command runs outside the judge's
// sandbox, because such agents call their own model over the network: configure only
// commands you trust as you trust your own shell. Their code is still judged only in
// the sandbox.
type External struct {
	*workingCopy
	opts    ExternalOptions
	cps     checkpoint.Store
	history []string // what the agent has been told, in order: its whole memory
}

// ExternalOptions configure an external coder.
type ExternalOptions struct {
	Options
	Command string        // run with /bin/sh -c in the working copy
	Timeout time.Duration // one turn; default 30m
	Dir     string        // the working copy
	Base    string        // base commit
}

type externalState struct {
	History   []string `json:"history"`
	Workspace string   `json:"workspace"`
}

// NewExternal returns an external coder whose working copy starts at the base commit.
func NewExternal(o ExternalOptions) (*External, error) {
	if strings.TrimSpace(o.Command) == "" {
		return nil, errors.New("external coder: empty command")
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	name := o.Settings.Name
	wc, err := newWorkingCopy(o.Workshop, o.Run, name, o.Dir, o.Base)
	if err != nil {
		return nil, err
	}
	return &External{
		workingCopy: wc, opts: o, cps: checkpoint.New(o.Workshop, o.Run, name),
		history: []string{coderPrompt(o.Settings), specMessage(o.Spec) + withBreak(instructionsMessage(o.Instructions))},
	}, nil
}

func (e *External) Name() string { return e.opts.Settings.Name }

func (e *External) Tell(_ context.Context, message string) error {
	e.history = append(e.history, message)
	return nil
}

// Solve runs the command once with everything the agent has been told on stdin, then
// commits the working copy.
func (e *External) Solve(ctx context.Context, turn orchestrate.Turn) (string, error) {
	e.history = append(e.history, turn.Message)
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", e.opts.Command)
	cmd.Dir = e.dir
	cmd.Stdin = strings.NewReader(strings.Join(e.history, "\n\n---\n\n"))
	cmd.Env = append(os.Environ(), fmt.Sprintf("DIXIT_DRAW=%d", turn.Draw))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		e.opts.Logger.Warn("external coder: turn timed out; keeping its working copy", "agent", e.Name(), "timeout", e.opts.Timeout)
	} else if ctx.Err() != nil {
		return "", ctx.Err()
	} else if err != nil {
		// A failing agent still leaves a working copy; the judge decides what it is worth.
		e.opts.Logger.Warn("external coder: command failed", "agent", e.Name(), "err", err, "output", tail(string(out), 2000))
	}
	commit, changed, err := e.commit(turn.Draw)
	if err == nil && !changed {
		e.opts.Logger.Warn("external coder: the turn changed no file; no new solution", "agent", e.Name(),
			"draw", turn.Draw, "solution", commit)
	}
	return commit, err
}

func (e *External) Workspace(context.Context) (string, error) { return e.current, nil }

func (e *External) Save(context.Context) (orchestrate.Checkpoint, error) {
	return e.cps.Save(externalState{History: e.history, Workspace: e.current})
}

// Restore truncates what the agent has been told and resets its working copy.
func (e *External) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	var s externalState
	if err := e.cps.Load(cp, &s); err != nil {
		return err
	}
	if err := e.reset(s.Workspace); err != nil {
		return err
	}
	e.history = s.History
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
