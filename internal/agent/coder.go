package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var _ orchestrate.Coder = (*Coder)(nil)

// maxWorkspaceFile is the largest file a coder's solution may keep; bigger ones (build
// outputs, runaway logs) are dropped before the workspace is committed.
const maxWorkspaceFile = 8 << 20

var finishTool = llm.Tool{
	Name:        "finish",
	Description: "Call this when your implementation is complete.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","description":"A short summary of what you did."}}}`),
}

// Coder is a live coder: a conversation and a working copy of the repository, committed
// to refs/dixit/<run>/coders/<name> after every solve.
type Coder struct {
	*live
	ws        *workspace.Workspace
	ref       string
	workspace string // the commit the working copy holds
}

// coderState is a coder's checkpoint.
type coderState struct {
	Messages  []llm.Message `json:"messages"`
	Workspace string        `json:"workspace"`
}

// NewCoder returns a coder whose working copy, in dir, starts at the base commit.
func NewCoder(opts Options, dir, base string, runner workspace.Runner) (*Coder, error) {
	l, err := newLive(opts, coderPrompt(opts.Spec, opts.Settings))
	if err != nil {
		return nil, err
	}
	c := &Coder{live: l, ref: "refs/dixit/" + opts.Run + "/coders/" + opts.Settings.Name, workspace: base}
	// The directory may hold a half-finished turn of a killed process: start clean.
	if err := resetDir(opts, dir, base); err != nil {
		return nil, err
	}
	if c.ws, err = workspace.Open(dir, workspace.Options{Runner: runner}); err != nil {
		return nil, fmt.Errorf("coder %s: %w", c.name, err)
	}
	return c, nil
}

// Solve runs one turn of the conversation and commits the working copy.
func (c *Coder) Solve(ctx context.Context, turn orchestrate.Turn) (string, error) {
	c.messages = append(c.messages, llm.Message{Role: llm.RoleUser, Content: turn.Message})
	tools := append(c.ws.Tools(), finishTool)
	err := c.converse(ctx, turn.Draw, tools, func(ctx context.Context, call llm.ToolCall) (string, bool, error) {
		if call.Name == finishTool.Name {
			return "Done.", true, nil
		}
		result, err := c.ws.Call(ctx, call)
		return result, false, err
	})
	if err != nil {
		return "", err
	}
	if err := pruneSpecial(c.ws.Dir()); err != nil {
		return "", fmt.Errorf("coder %s: %w", c.name, err)
	}
	tree, err := c.opts.Workshop.ImportDir(c.ws.Dir())
	if err != nil {
		return "", fmt.Errorf("coder %s: %w", c.name, err)
	}
	commit, err := c.opts.Workshop.CommitAfter(c.ref, c.workspace, tree, fmt.Sprintf("%s: solve %d", c.name, turn.Draw))
	if err != nil {
		return "", err
	}
	c.workspace = commit
	return commit, nil
}

func (c *Coder) Workspace(context.Context) (string, error) { return c.workspace, nil }

func (c *Coder) Save(context.Context) (orchestrate.Checkpoint, error) {
	return c.cps.Save(coderState{Messages: c.messages, Workspace: c.workspace})
}

// Restore truncates the conversation to the checkpoint and resets the working copy.
func (c *Coder) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	var s coderState
	if err := c.cps.Load(cp, &s); err != nil {
		return err
	}
	if err := resetDir(c.opts, c.ws.Dir(), s.Workspace); err != nil {
		return err
	}
	head, _, err := c.opts.Workshop.Ref(c.ref)
	if err != nil {
		return err
	}
	if head != "" && head != s.Workspace {
		if err := c.opts.Workshop.SetRef(c.ref, head, s.Workspace); err != nil {
			return fmt.Errorf("restore workspace of %s: %w", c.name, err)
		}
	}
	c.messages, c.workspace = s.Messages, s.Workspace
	return nil
}

// resetDir makes dir hold exactly the files of commit.
func resetDir(opts Options, dir, commit string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("reset %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("reset %s: %w", dir, err)
	}
	return opts.Workshop.Checkout(commit, dir)
}

// pruneSpecial removes what a solution cannot hold: symbolic links and other special
// files a command may have made, and files too large to be source.
func pruneSpecial(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() || info.Size() > maxWorkspaceFile {
			return os.Remove(p)
		}
		return nil
	})
}
