package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
)

// replyLog journals every model reply of one agent, keyed by (draw, step): the turn it
// belongs to and its place in that turn's tool loop. A turn redone after a crash gets its
// replies back from the log instead of paying the endpoint again.
type replyLog struct {
	journal  *gitstate.Journal
	recorded map[string]reply
	live     int   // replies paid for in this process
	stats    Stats // of every reply journalled
	text     bool  // the journal holds the switch to the text protocol
}

// Stats describes an agent's replies as its journal holds them: every reply paid for,
// in this process or in an earlier one of the same run, rolled-back turns included.
type Stats struct {
	Replies        int `json:"replies"`
	RecoveredCalls int `json:"recovered_calls"` // tool calls read from the replies' text
	Truncated      int `json:"truncated"`       // replies cut off at the token limit
	Refused        int `json:"refused"`
	// Text: the agent speaks the text protocol (agents.tools: text, or auto after the
	// endpoint refused tools).
	Text bool `json:"text,omitempty"`
}

func (s *Stats) add(r llm.Response) {
	s.Replies++
	s.RecoveredCalls += r.RecoveredCalls()
	if r.Truncated() {
		s.Truncated++
	}
	if r.Refused() {
		s.Refused++
	}
}

type reply struct {
	Draw     int          `json:"draw"`
	Step     int          `json:"step"`
	Digest   string       `json:"digest"` // of the request: a different request is not replayed
	Response llm.Response `json:"response"`
	// Mode, when set, makes the entry a switch to another protocol rather than a reply:
	// "text" once the endpoint showed it cannot take tools (Why says how).
	Mode string `json:"mode,omitempty"`
	Why  string `json:"why,omitempty"`
}

func openReplies(w *gitstate.Workshop, run, agent string) (*replyLog, error) {
	j, err := w.Journal("refs/dixit/" + run + "/replies/" + agent)
	if err != nil {
		return nil, err
	}
	entries, err := j.Entries()
	if err != nil {
		return nil, fmt.Errorf("replies of %s: %w", agent, err)
	}
	l := &replyLog{journal: j, recorded: map[string]reply{}}
	for i, data := range entries {
		var r reply
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("replies of %s: entry %d is corrupt: %w", agent, i+1, err)
		}
		if r.Mode == modeText {
			l.text = true
			continue
		}
		l.recorded[key(r.Draw, r.Step)] = r
		l.stats.add(r.Response)
	}
	return l, nil
}

func key(draw, step int) string { return fmt.Sprintf("%d/%d", draw, step) }

// chat answers from the log when it holds this exact request, and otherwise asks the
// client and journals the reply before returning it.
func (l *replyLog) chat(ctx context.Context, client llm.Client, draw, step int, req llm.Request) (llm.Response, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return llm.Response{}, fmt.Errorf("encode request: %w", err)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:16])
	if r, ok := l.recorded[key(draw, step)]; ok && r.Digest == digest {
		return r.Response, nil
	}
	resp, err := client.Chat(ctx, req)
	if err != nil {
		return llm.Response{}, err
	}
	r := reply{Draw: draw, Step: step, Digest: digest, Response: resp}
	rec, err := json.Marshal(r)
	if err != nil {
		return llm.Response{}, fmt.Errorf("encode reply: %w", err)
	}
	if err := l.journal.Append(rec); err != nil {
		return llm.Response{}, fmt.Errorf("journal reply: %w", err)
	}
	l.recorded[key(draw, step)] = r
	l.live++
	l.stats.add(resp)
	return resp, nil
}

// modeText marks the journal entry of a switch to the text protocol.
const modeText = "text"

// switchToText journals the switch to the text protocol, so that a resumed run makes
// the same requests and has its replies replayed.
func (l *replyLog) switchToText(draw, step int, why string) error {
	rec, err := json.Marshal(reply{Draw: draw, Step: step, Mode: modeText, Why: why})
	if err != nil {
		return fmt.Errorf("encode the switch to text: %w", err)
	}
	if err := l.journal.Append(rec); err != nil {
		return fmt.Errorf("journal the switch to text: %w", err)
	}
	l.text = true
	return nil
}
