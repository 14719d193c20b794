// Package agent runs coders and testers on any OpenAI-compatible model. An agent is a
// conversation plus a workspace; checkpoints save both, and every model reply is
// journalled so a resumed run never pays for it twice.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/agent/checkpoint"
	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
)

// Options are what both roles need.
type Options struct {
	Client      llm.Client
	Settings    config.AgentSettings
	Model       string // when Settings.Model is empty
	MaxSteps    int
	TurnTimeout time.Duration // 0: no limit
	Spec        string        // as people wrote it; agents read it as specMessage shows it
	Workshop    *gitstate.Workshop
	Run         string
	Logger      *slog.Logger
}

// live is the conversation machinery both roles share.
type live struct {
	opts     Options
	name     string
	replies  *replyLog
	cps      checkpoint.Store
	messages []llm.Message
	usage    llm.Usage
	failed   int // turns that ended on a degenerate reply or an overfull context
}

// newLive starts a conversation with the role's instructions as the system message; the
// spec comes with the first user message (ask).
func newLive(opts Options, system string) (*live, error) {
	if opts.Client == nil || opts.Workshop == nil {
		return nil, errors.New("agent: a client and a workshop are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	replies, err := openReplies(opts.Workshop, opts.Run, opts.Settings.Name)
	if err != nil {
		return nil, err
	}
	return &live{
		opts: opts, name: opts.Settings.Name, replies: replies,
		cps:      checkpoint.New(opts.Workshop, opts.Run, opts.Settings.Name),
		messages: []llm.Message{{Role: llm.RoleSystem, Content: system}},
	}, nil
}

func (a *live) Name() string { return a.name }

// Spent returns the tokens this agent's replies cost so far (the orchestrator meters
// each solve or proposal by the difference).
func (a *live) Spent() (prompt, completion int) {
	return a.usage.PromptTokens, a.usage.CompletionTokens
}

func (a *live) Tell(_ context.Context, message string) error {
	a.ask(message)
	return nil
}

// ask adds a user message. The first one carries the spec before it, as data: a user
// message, never the instructions (specMessage). One message rather than two, because
// some chat templates refuse two user messages in a row.
func (a *live) ask(message string) {
	if len(a.messages) == 1 && !strings.Contains(a.messages[0].Content, oldSpecTag) {
		message = specMessage(a.opts.Spec) + "\n" + message
	}
	a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: message})
}

// oldSpecTag marks instructions written before the spec moved out of them: a run
// resumed from such a checkpoint has its spec already.
const oldSpecTag = "\n<specification>\n"

// handler executes one tool call; stop ends the turn after the current reply's calls.
type handler func(ctx context.Context, call llm.ToolCall) (result string, stop bool, err error)

// converse runs one turn: the model replies, its tool calls are executed and answered,
// until it stops calling tools, a handler stops the turn, or MaxSteps replies were made.
// A degenerate reply or an overfull context ends the turn as a failed attempt; errors
// that retrying cannot fix (credentials, quota) are returned.
func (a *live) converse(ctx context.Context, draw int, tools []llm.Tool, handle handler) error {
	parent := ctx
	if a.opts.TurnTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.opts.TurnTimeout)
		defer cancel()
	}
	model := a.opts.Settings.Model
	if model == "" {
		model = a.opts.Model
	}
	seed := a.opts.Settings.Seed + draw // a re-roll after a rollback samples afresh
	compacted, badCalls := false, 0
	for step := 1; step <= a.opts.MaxSteps; step++ {
		req := llm.Request{Model: model, Messages: a.messages, Tools: tools, Temperature: a.opts.Settings.Temperature, Seed: &seed}
		resp, err := a.replies.chat(ctx, a.opts.Client, draw, step, req)
		switch {
		case errors.Is(err, llm.ErrContextLength) && !compacted:
			compacted = true
			a.compact()
			continue
		case err != nil && parent.Err() == nil && ctx.Err() != nil:
			// The turn's own deadline, not the run's: the turn ends with the work so far.
			a.failed++
			a.opts.Logger.Warn("agent: turn timed out", "agent", a.name, "draw", draw, "timeout", a.opts.TurnTimeout)
			return nil
		case errors.Is(err, llm.ErrContextLength), errors.Is(err, llm.ErrRunaway):
			a.failed++
			a.opts.Logger.Warn("agent: turn ended early", "agent", a.name, "draw", draw, "err", err)
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", a.name, err)
		}
		a.usage.PromptTokens += resp.Usage.PromptTokens
		a.usage.CompletionTokens += resp.Usage.CompletionTokens
		a.messages = append(a.messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			return nil
		}
		stop := false
		for _, call := range resp.Message.ToolCalls {
			result, done, err := handle(ctx, call)
			if err != nil {
				return fmt.Errorf("%s: tool %s: %w", a.name, call.Name, err)
			}
			stop = stop || done
			if workspace.IsToolError(result) {
				badCalls++
			} else {
				badCalls = 0
			}
			a.messages = append(a.messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: result})
		}
		if stop {
			return nil
		}
		if badCalls >= maxBadCalls {
			// The model keeps making calls that cannot work: repair has had its chance.
			a.failed++
			a.opts.Logger.Warn("agent: turn ended after repeated bad tool calls", "agent", a.name, "draw", draw)
			return nil
		}
	}
	return nil
}

// maxBadCalls is how many tool calls in a row may fail (malformed arguments, unknown
// tools, paths outside the workspace) before the turn is ended as a failed attempt.
const maxBadCalls = 5

// keepRecent is how many trailing messages compaction leaves untouched.
const keepRecent = 8

// compact shortens old tool output, the bulk of a long conversation, keeping every
// message (and so every tool call's answer) in place.
func (a *live) compact() {
	for i := 1; i < len(a.messages)-keepRecent; i++ {
		if m := &a.messages[i]; m.Role == llm.RoleTool && len(m.Content) > 200 {
			m.Content = m.Content[:200] + "\n[the rest of this output was dropped to save space]"
		}
	}
}
