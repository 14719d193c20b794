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
	// Instructions are the repository's agent instructions (AGENTS.md …) from the base,
	// given with the spec in the first user message; nil when there are none or
	// agents.repo_instructions is off.
	Instructions []InstructionFile
	Tools        string // agents.tools: config.ToolsAuto ("" too), ToolsNative or ToolsText
	Workshop     *gitstate.Workshop
	Run          string
	Logger       *slog.Logger
}

// live is the conversation machinery both roles share.
type live struct {
	opts     Options
	name     string
	replies  *replyLog
	cps      checkpoint.Store
	messages []llm.Message
	usage    llm.Usage
	failed   int // failed turns: a degenerate reply, an overfull context, a refusal, no change
	// text: the agent speaks the text protocol (agents.tools: text, or auto once the
	// endpoint refused tools); textSystem then stands in for the system message.
	text       bool
	textSystem string
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
		opts: opts, name: opts.Settings.Name, replies: replies, text: opts.Tools == config.ToolsText || replies.text,
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

// Stats describes the agent's replies so far (see Stats).
func (a *live) Stats() Stats {
	s := a.replies.stats
	s.Text = a.text
	return s
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
		message = specMessage(a.opts.Spec) + "\n" + withBreak(instructionsMessage(a.opts.Instructions)) + message
	}
	a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: message})
}

// oldSpecTag marks instructions written before the spec moved out of them: a run
// resumed from such a checkpoint has its spec already.
const oldSpecTag = "\n<specification>\n"

// handler executes one tool call; stop ends the turn after the current reply's calls.
type handler func(ctx context.Context, call llm.ToolCall) (result string, stop bool, err error)

// role is what a turn asks of the agent beyond its conversation.
type role struct {
	tools  []llm.Tool
	handle handler
	// produced reports whether the turn has produced its work (a changed working copy,
	// a test) by the time the model replied last without calling a tool; nil when
	// there is nothing to produce but words.
	produced func(last llm.Message) (bool, error)
	nudge    string // said once when a reply without calls ends a turn that produced nothing
	// text acts on a reply in the text protocol; nil for a role that has none.
	text      func(ctx context.Context, last llm.Message) (textReply, error)
	textNudge string // nudge, in the text protocol
}

// What the agents are told when a reply would end the turn too early. Each is said at
// most once a turn; the replies that follow are journalled like any other.
const (
	nudgeCoder  = "Nothing was written; use the tools to change files."
	nudgeTester = "No test was submitted; use submit_test."
	cutOff      = "Your reply was cut off at the token limit; continue where you stopped, using the tools."
)

// turnState is what converse remembers within one turn.
type turnState struct {
	draw               int
	compacted, nudged  bool
	continued, refused bool
	badCalls           int
}

// converse runs one turn: the model replies, its tool calls are executed and answered,
// until it stops calling tools, a handler stops the turn, or MaxSteps replies were made.
// A reply without calls is followed up once when it was cut off, and once more when the
// turn has produced nothing yet (followUp). A refusal, a degenerate reply or an
// overfull context ends the turn as a failed attempt; errors that retrying cannot fix
// (credentials, quota) are returned. refused reports a turn the model refused: its text
// is no answer.
func (a *live) converse(ctx context.Context, draw int, r role) (refused bool, err error) {
	parent := ctx
	if a.opts.TurnTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.opts.TurnTimeout)
		defer cancel()
	}
	t := &turnState{draw: draw}
	for step := 1; step <= a.opts.MaxSteps; step++ {
		resp, err := a.replies.chat(ctx, a.opts.Client, draw, step, a.request(draw, r))
		switch {
		case errors.Is(err, llm.ErrContextLength) && !t.compacted:
			t.compacted = true
			a.compact()
			continue
		case err != nil && parent.Err() == nil && ctx.Err() != nil:
			// The turn's own deadline, not the run's: the turn ends with the work so far.
			a.failed++
			a.opts.Logger.Warn("agent: turn timed out", "agent", a.name, "draw", draw, "timeout", a.opts.TurnTimeout)
			return false, nil
		case errors.Is(err, llm.ErrContextLength), errors.Is(err, llm.ErrRunaway):
			a.failed++
			a.opts.Logger.Warn("agent: turn ended early", "agent", a.name, "draw", draw, "err", err)
			return false, nil
		case err != nil && a.mayTurnToText(r) && toolsUnsupported(err):
			if err := a.turnToText(draw, step, err); err != nil {
				return false, err
			}
			step-- // the refused request was no reply: this step is asked again, without tools
			continue
		case err != nil:
			return false, fmt.Errorf("%s: %w", a.name, err)
		}
		done, err := a.take(ctx, t, step, resp, r)
		if err != nil || done {
			return t.refused, err
		}
	}
	return t.refused, nil
}

// request is the next request of the conversation.
func (a *live) request(draw int, r role) llm.Request {
	tools, messages := r.tools, a.messages
	if a.text {
		tools, messages = nil, a.textMessages()
	}
	model := a.opts.Settings.Model
	if model == "" {
		model = a.opts.Model
	}
	seed := a.opts.Settings.Seed + draw // a re-roll after a rollback samples afresh
	return llm.Request{Model: model, Messages: messages, Tools: tools, Temperature: a.opts.Settings.Temperature,
		Seed: &seed, NativeCallsOnly: a.opts.Tools == config.ToolsNative}
}

// take adds a reply to the conversation and acts on it: its calls are executed and
// answered, or the turn is followed up or ends. done ends the turn.
func (a *live) take(ctx context.Context, t *turnState, step int, resp llm.Response, r role) (done bool, err error) {
	a.usage.PromptTokens += resp.Usage.PromptTokens
	a.usage.CompletionTokens += resp.Usage.CompletionTokens
	if resp.Recovered != "" {
		a.opts.Logger.Info("agent: tool calls read from the reply's text", "agent", a.name, "draw", t.draw, "step", step,
			"recovered", resp.Recovered, "calls", resp.RecoveredCalls())
	}
	a.messages = append(a.messages, resp.Message)
	if resp.Refused() {
		// The history keeps what the model said; the turn's result never takes it for work.
		a.failed++
		t.refused = true
		a.opts.Logger.Warn("agent: the model refused; the turn ends", "agent", a.name, "draw", t.draw, "step", step,
			"refusal", clip(resp.Message.Content, 200))
		return true, nil
	}
	if a.text && r.text != nil {
		return a.takeText(ctx, t, step, resp, r)
	}
	if len(resp.Message.ToolCalls) == 0 {
		return a.goOn(t, step, resp, r)
	}
	return a.call(ctx, t, resp.Message.ToolCalls, r.handle)
}

// goOn follows up a reply that did nothing, or ends the turn (followUp).
func (a *live) goOn(t *turnState, step int, resp llm.Response, r role) (done bool, err error) {
	next, err := a.followUp(t, resp, r)
	if err != nil || next == "" {
		return true, err
	}
	a.opts.Logger.Info("agent: the turn goes on", "agent", a.name, "draw", t.draw, "step", step, "told", next)
	a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: next})
	return false, nil
}

// followUp decides what follows a reply without tool calls: what to tell the model so
// that it goes on, or "" to end the turn. A reply cut off at the token limit is asked
// to go on once; a reply that would end a turn that produced nothing is nudged once.
func (a *live) followUp(t *turnState, resp llm.Response, r role) (string, error) {
	if len(r.tools) == 0 {
		return "", nil // words are the answer
	}
	if resp.Truncated() && !t.continued {
		t.continued = true
		if a.text {
			return cutOffText, nil
		}
		return cutOff, nil
	}
	if r.produced == nil || t.nudged {
		return "", nil
	}
	ok, err := r.produced(resp.Message)
	if err != nil || ok {
		return "", err
	}
	t.nudged = true
	if a.text && r.textNudge != "" {
		return r.textNudge, nil
	}
	return r.nudge, nil
}

// call executes a reply's tool calls and answers each. done ends the turn: a handler
// stopped it, or the model keeps making calls that cannot work.
func (a *live) call(ctx context.Context, t *turnState, calls []llm.ToolCall, handle handler) (done bool, err error) {
	stop := false
	for _, call := range calls {
		result, done, err := handle(ctx, call)
		if err != nil {
			return true, fmt.Errorf("%s: tool %s: %w", a.name, call.Name, err)
		}
		stop = stop || done
		if workspace.IsToolError(result) {
			t.badCalls++
		} else {
			t.badCalls = 0
		}
		a.messages = append(a.messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: result})
	}
	if stop {
		return true, nil
	}
	if t.badCalls >= maxBadCalls {
		// The model keeps making calls that cannot work: repair has had its chance.
		a.failed++
		a.opts.Logger.Warn("agent: turn ended after repeated bad tool calls", "agent", a.name, "draw", t.draw)
		return true, nil
	}
	return false, nil
}

// clip shortens text for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
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
