package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var _ orchestrate.Coder = (*Coder)(nil)

var finishTool = llm.Tool{
	Name:        "finish",
	Description: "Call this when your implementation is complete.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","description":"A short summary of what you did."}}}`),
}

// Coder is a live coder: a conversation and a working copy of the repository, committed
// to refs/dixit/<run>/coders/<name> after every solve.
type Coder struct {
	*live
	*workingCopy
	ws *workspace.Workspace
}

// coderState is a coder's checkpoint.
type coderState struct {
	Messages  []llm.Message `json:"messages"`
	Workspace string        `json:"workspace"`
}

// NewCoder returns a coder whose working copy, in dir, starts at the base commit.
func NewCoder(opts Options, dir, base string, runner workspace.Runner) (*Coder, error) {
	l, err := newLive(opts, coderPrompt(opts.Settings))
	if err != nil {
		return nil, err
	}
	c := &Coder{live: l}
	if c.workingCopy, err = newWorkingCopy(opts.Workshop, opts.Run, opts.Settings.Name, dir, base); err != nil {
		return nil, err
	}
	if c.ws, err = workspace.Open(dir, workspace.Options{Runner: runner}); err != nil {
		return nil, fmt.Errorf("coder %s: %w", c.name, err)
	}
	files, err := listing(c.ws)
	if err != nil {
		return nil, fmt.Errorf("coder %s: %w", c.name, err)
	}
	c.textSystem = coderTextPrompt(opts.Settings, files)
	return c, nil
}

// Solve runs one turn of the conversation and commits the working copy. A turn that
// changed nothing is a failed attempt, not a solution: the previous solution (the base,
// before the first) is returned as it is, and the judge treats it as before.
func (c *Coder) Solve(ctx context.Context, turn orchestrate.Turn) (string, error) {
	c.ask(turn.Message)
	failed := c.failed
	_, err := c.converse(ctx, turn.Draw, role{
		tools: append(c.ws.Tools(), finishTool),
		handle: func(ctx context.Context, call llm.ToolCall) (string, bool, error) {
			if call.Name == finishTool.Name {
				return "Done.", true, nil
			}
			result, err := c.ws.Call(ctx, call)
			return result, false, err
		},
		produced:  func(llm.Message) (bool, error) { return c.changed() },
		nudge:     nudgeCoder,
		text:      c.applyText,
		textNudge: nudgeCoderText,
	})
	if err != nil {
		return "", err
	}
	commit, changed, err := c.commit(turn.Draw)
	if err != nil {
		return "", err
	}
	if !changed {
		if c.failed == failed { // one failed attempt per turn, whatever else went wrong
			c.failed++
		}
		c.opts.Logger.Warn("agent: the turn changed no file; no new solution", "agent", c.name, "draw", turn.Draw,
			"solution", commit)
	}
	return commit, nil
}

func (c *Coder) Workspace(context.Context) (string, error) { return c.current, nil }

func (c *Coder) Save(context.Context) (orchestrate.Checkpoint, error) {
	return c.cps.Save(coderState{Messages: c.messages, Workspace: c.current})
}

// Restore truncates the conversation to the checkpoint and resets the working copy.
func (c *Coder) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	var s coderState
	if err := c.cps.Load(cp, &s); err != nil {
		return err
	}
	if err := c.reset(s.Workspace); err != nil {
		return err
	}
	c.messages = s.Messages
	return nil
}
