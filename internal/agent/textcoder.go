package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/llm"
)

// textReply is what a reply in the text protocol came to.
type textReply struct {
	answer string // what was written and refused, told to the model; "" when it wrote no block
	done   bool   // the model said DONE and everything it wrote was applied
	// refused: the reply wrote blocks and every one was refused, as a reply whose tool
	// calls all fail; maxBadCalls such replies in a row end the turn.
	refused bool
}

// applyText applies a coder's reply in the text protocol to the working copy, through
// the workspace's own tools, so paths are confined and protected paths refused exactly
// as for a tool call.
func (c *Coder) applyText(ctx context.Context, msg llm.Message) (textReply, error) {
	blocks, done := parseText(msg.Content)
	reads := readRequests(msg.Content)
	if len(blocks) == 0 && len(reads) == 0 {
		return textReply{done: done}, nil
	}
	var results []string
	refused, applied := false, false
	for i, b := range blocks {
		lines, err := c.applyBlock(ctx, i+1, b)
		if err != nil {
			return textReply{}, fmt.Errorf("%s: apply block %d: %w", c.name, i+1, err)
		}
		for _, l := range lines {
			refused = refused || workspace.IsToolError(l)
			applied = applied || !workspace.IsToolError(l)
			results = append(results, "- "+l)
		}
	}
	var answer strings.Builder
	if len(results) > 0 {
		answer.WriteString("Applied your reply to the working copy:\n" + strings.Join(results, "\n") + "\n\n")
	}
	files, err := readFiles(ctx, c.ws, reads)
	if err != nil {
		return textReply{}, fmt.Errorf("%s: %w", c.name, err)
	}
	answer.WriteString(files)
	answer.WriteString("Write more blocks to change files, or a line DONE when the implementation is complete.")
	return textReply{answer: answer.String(), done: done && !refused && len(reads) == 0,
		refused: len(results) > 0 && !applied && len(reads) == 0}, nil
}

// applyBlock applies block n and says what came of it, a line per file.
func (c *Coder) applyBlock(ctx context.Context, n int, b textBlock) ([]string, error) {
	switch {
	case !b.closed:
		return []string{fmt.Sprintf("%sblock %d has no closing fence, so it was not written", workspace.ErrorPrefix, n)}, nil
	case b.diff():
		return c.applyDiff(ctx, b.body)
	case b.path == "":
		return []string{fmt.Sprintf("%sblock %d names no file, so it was not written: put the path in the "+
			"fence (```go path=calc.go) or on a line File: calc.go just before it", workspace.ErrorPrefix, n)}, nil
	}
	out, err := c.ws.Call(ctx, toolCall("write_file", map[string]any{"path": b.path, "content": b.body}))
	return []string{out}, err
}

// applyDiff applies a unified diff file by file: each file's patch is applied to its
// current content and the result written, or the reason it does not apply is told.
func (c *Coder) applyDiff(ctx context.Context, patch string) ([]string, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(patch))
	if err != nil || len(files) == 0 {
		why := "it holds no file header (--- a/path, +++ b/path) and hunk"
		if err != nil {
			why = err.Error()
		}
		return []string{fmt.Sprintf("%sthe diff could not be read (%s); write the whole file instead", workspace.ErrorPrefix, why)}, nil
	}
	git := strings.Contains(patch, "diff --git ")
	var out []string
	for _, f := range files {
		line, err := c.applyFile(ctx, f, git)
		if err != nil {
			return nil, err
		}
		out = append(out, line)
	}
	return out, nil
}

// applyFile applies one file's patch and says what came of it.
func (c *Coder) applyFile(ctx context.Context, f *gitdiff.File, git bool) (string, error) {
	name := diffName(f.NewName, git)
	if f.IsDelete {
		return c.ws.Call(ctx, toolCall("delete_file", map[string]any{"path": diffName(f.OldName, git)}))
	}
	old := ""
	if !f.IsNew {
		var err error
		if old, err = c.ws.Text(diffName(f.OldName, git)); err != nil {
			return fmt.Sprintf("%sthe diff of %s was not applied: %v", workspace.ErrorPrefix, name, err), nil
		}
	}
	var buf bytes.Buffer
	if err := gitdiff.Apply(&buf, strings.NewReader(old), f); err != nil {
		return fmt.Sprintf("%sthe diff of %s does not apply to the file as it is (%v); read it again or write it whole",
			workspace.ErrorPrefix, name, err), nil
	}
	return c.ws.Call(ctx, toolCall("write_file", map[string]any{"path": name, "content": buf.String()}))
}

// diffName drops the a/ or b/ prefix of a traditional diff's names, as patch -p1 does;
// go-gitdiff drops them itself from a git diff.
func diffName(name string, git bool) string {
	if git {
		return name
	}
	if rest, ok := strings.CutPrefix(name, "a/"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(name, "b/"); ok {
		return rest
	}
	return name
}

// toolCall is a workspace call the text protocol makes on the model's behalf.
func toolCall(name string, args map[string]any) llm.ToolCall {
	data, _ := json.Marshal(args) // strings and booleans: cannot fail
	return llm.ToolCall{Name: name, Arguments: string(data)}
}
