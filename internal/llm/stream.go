package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// chatStream runs one streamed attempt, cutting it off as soon as the reply runs away.
// progress is called whenever an event arrives.
func (c *OpenAI) chatStream(ctx context.Context, req openai.ChatCompletionRequest, progress func()) (Response, error) {
	req.Stream = true
	if !c.noUsage.Load() {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("llm: encode request: %w", err)
	}
	hr, err := c.post(ctx, req.Model, body, true)
	if err != nil {
		return Response{}, err
	}
	defer hr.Body.Close()
	if ct := hr.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		return c.readWhole(hr) // the server (or a proxy) ignored stream: true
	}
	acc := newAccumulator(c.runaway)
	events := newSSEReader(hr.Body)
	for {
		ev, err := events.next()
		progress()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Response{}, err
		}
		data := bytes.TrimSpace(ev.data)
		if string(data) == "[DONE]" {
			break
		}
		chunk, err := decodeEvent(ev.name, data)
		if err != nil && events.atEOF {
			return Response{}, errIncompleteStream // cut in the middle of its last event
		}
		if err != nil {
			return Response{}, err
		}
		if err := acc.add(chunk); err != nil {
			return Response{}, err
		}
	}
	return acc.response()
}

// decodeEvent reads one event: a chunk, or an error the server sent in its place.
func decodeEvent(name string, data []byte) (*wireReply, error) {
	var chunk wireReply
	err := json.Unmarshal(data, &chunk)
	if name != "error" {
		if err != nil {
			return nil, fmt.Errorf("llm: unreadable stream event (%v): %s", err, snippet(string(data)))
		}
		return &chunk, nil
	}
	// llama.cpp: "error: {...}", the error object itself.
	if err == nil && chunk.failure() != nil {
		return &chunk, nil
	}
	var e wireError
	if json.Unmarshal(data, &e) != nil || e.Message == "" {
		e = wireError{Message: snippet(string(data))}
	}
	return &wireReply{Error: &e}, nil
}

// accumulator assembles a streamed reply: content and refusal are concatenated, tool
// calls are merged by their index (id and name arrive once, arguments in pieces).
type accumulator struct {
	content, refusal strings.Builder
	calls            []*ToolCall
	slot             map[int]int // tool-call index in the stream -> position in calls
	reason           string
	usage            Usage
	guard            *runawayGuard
}

func newAccumulator(lim RunawayLimits) *accumulator {
	return &accumulator{slot: map[int]int{}, guard: newRunawayGuard(lim)}
}

// add takes one chunk. An error object in it (OpenAI, OpenRouter, vLLM send one when
// the provider fails midway) ends the reply as that error: the partial reply is not an
// answer.
func (a *accumulator) add(chunk *wireReply) error {
	if f := chunk.failure(); f != nil {
		return streamError(f)
	}
	if u := chunk.usage(); u != nil {
		a.usage = *u
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // we never ask for n > 1
		}
		if err := a.addDelta(ch.Delta); err != nil {
			return err
		}
		if err := a.addDelta(ch.Message); err != nil { // some servers stream whole messages
			return err
		}
		if ch.FinishReason != "" && ch.FinishReason != "null" {
			a.reason = ch.FinishReason
		}
	}
	return nil
}

func (a *accumulator) addDelta(d *wireMessage) error {
	if d == nil {
		return nil
	}
	a.content.WriteString(string(d.Content))
	a.refusal.WriteString(d.Refusal)
	for _, part := range []struct{ channel, text string }{
		{"content", string(d.Content)}, {"refusal", d.Refusal}, {"reasoning", d.ReasoningContent + d.Reasoning},
	} {
		if err := a.guard.write(part.channel, part.text); err != nil {
			return err
		}
	}
	for i, tc := range d.ToolCalls {
		if err := a.addCall(i, tc); err != nil {
			return err
		}
	}
	if fc := d.FunctionCall; fc != nil {
		zero := 0
		return a.addCall(0, wireToolCall{Index: &zero, Function: *fc})
	}
	return nil
}

// addCall merges one tool-call delta. Servers that omit the index get one by id: a new
// id opens a new call, no id continues the last one.
func (a *accumulator) addCall(pos int, tc wireToolCall) error {
	var key int
	switch {
	case tc.Index != nil && !a.reusedIndex(*tc.Index, tc.ID):
		key = *tc.Index
	case tc.ID != "" && !a.hasID(tc.ID):
		key = -1 - len(a.calls) // a key no indexed server would use
	case len(a.calls) > 0:
		key = a.lastKey()
	default:
		key = pos
	}
	n, ok := a.slot[key]
	if !ok {
		n = len(a.calls)
		a.slot[key] = n
		a.calls = append(a.calls, &ToolCall{})
	}
	call := a.calls[n]
	if tc.ID != "" {
		call.ID = tc.ID
	}
	if tc.Function.Name != "" {
		call.Name = tc.Function.Name // set, not appended: some servers repeat it
	}
	call.Arguments += string(tc.Function.Arguments)
	return a.guard.write(fmt.Sprintf("tool call %d arguments", n), string(tc.Function.Arguments))
}

// reusedIndex reports an index that already holds a call with another id: older
// Ollama numbered every parallel call 0.
func (a *accumulator) reusedIndex(index int, id string) bool {
	n, ok := a.slot[index]
	return ok && id != "" && a.calls[n].ID != "" && a.calls[n].ID != id
}

func (a *accumulator) hasID(id string) bool {
	for _, c := range a.calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

func (a *accumulator) lastKey() int {
	last := len(a.calls) - 1
	for k, n := range a.slot {
		if n == last {
			return k
		}
	}
	return 0
}

func (a *accumulator) response() (Response, error) {
	switch a.reason {
	case "":
		return Response{}, errIncompleteStream
	case "error": // OpenRouter's finish reason for a provider that failed midway
		return Response{}, streamError(&wireError{})
	}
	if err := a.guard.finish(); err != nil {
		return Response{}, err
	}
	calls := make([]ToolCall, 0, len(a.calls))
	for _, c := range a.calls {
		calls = append(calls, *c)
	}
	return finish(a.content.String(), a.refusal.String(), calls, a.reason, a.usage), nil
}
