package agent

import (
	"context"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm"
)

// What the agents are told in the text protocol where the native one mentions tools.
const (
	cutOffText      = "Your reply was cut off at the token limit; continue where you stopped."
	nudgeCoderText  = "Nothing was written; write each file as a fenced block that names its path, or a diff."
	nudgeTesterText = "No test was received; write the whole test file as one fenced block."
)

// textMessages is the conversation as the text protocol sends it: its own instructions
// in place of the system message, which a checkpoint keeps as it was.
func (a *live) textMessages() []llm.Message {
	if a.textSystem == "" || len(a.messages) == 0 || a.messages[0].Role != llm.RoleSystem {
		return a.messages
	}
	out := append([]llm.Message(nil), a.messages...)
	out[0].Content = a.textSystem
	return out
}

// mayTurnToText: with agents.tools: auto, an agent whose role has a text protocol
// turns to it when the endpoint refuses tools.
func (a *live) mayTurnToText(r role) bool {
	return !a.text && r.text != nil && a.textSystem != "" && (a.opts.Tools == config.ToolsAuto || a.opts.Tools == "")
}

// turnToText switches the agent to the text protocol for the rest of the run, and
// journals it first: a resumed run starts in the text protocol and so makes the same
// requests, whose replies the journal holds.
func (a *live) turnToText(draw, step int, cause error) error {
	if err := a.replies.switchToText(draw, step, cause.Error()); err != nil {
		return err
	}
	a.text = true
	a.opts.Logger.Warn("agent: the endpoint refused tools; the agent uses the text protocol from now on",
		"agent", a.name, "draw", draw, "step", step, "err", cause)
	return nil
}

// takeText acts on a reply in the text protocol: what it wrote is applied and the
// result told, a turn the model says is done ends, and a reply that wrote nothing is
// followed up as a native reply without calls is (goOn).
func (a *live) takeText(ctx context.Context, t *turnState, step int, resp llm.Response, r role) (done bool, err error) {
	out, err := r.text(ctx, resp.Message)
	if err != nil {
		return true, err
	}
	if out.answer == "" {
		return a.goOn(t, step, resp, r)
	}
	if out.done {
		return true, nil
	}
	if out.refused {
		t.badCalls++
	} else {
		t.badCalls = 0
	}
	if t.badCalls >= maxBadCalls {
		// The model keeps writing what cannot be applied: as with bad tool calls.
		a.failed++
		a.opts.Logger.Warn("agent: turn ended after repeated refused blocks", "agent", a.name, "draw", t.draw)
		return true, nil
	}
	a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Content: out.answer})
	return false, nil
}
