package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// chatStream runs one streamed attempt, cutting it off as soon as the reply runs away.
// progress is called whenever a chunk arrives.
func (c *OpenAI) chatStream(ctx context.Context, req openai.ChatCompletionRequest, progress func()) (Response, error) {
	req.Stream = true
	if !c.noUsage.Load() {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	stream, err := c.client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return Response{}, err
	}
	defer stream.Close()
	acc := newAccumulator(c.runaway)
	for {
		chunk, err := stream.Recv()
		progress()
		if errors.Is(err, io.EOF) {
			break
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

func (a *accumulator) add(chunk openai.ChatCompletionStreamResponse) error {
	if chunk.Usage != nil {
		a.usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens}
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // we never ask for n > 1
		}
		d := ch.Delta
		a.content.WriteString(d.Content)
		a.refusal.WriteString(d.Refusal)
		for _, part := range []struct{ channel, text string }{
			{"content", d.Content}, {"refusal", d.Refusal}, {"reasoning", d.ReasoningContent},
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
		if ch.FinishReason != "" && ch.FinishReason != openai.FinishReasonNull {
			a.reason = string(ch.FinishReason)
		}
	}
	return nil
}

// addCall merges one tool-call delta. Servers that omit the index get one by id: a new
// id opens a new call, no id continues the last one.
func (a *accumulator) addCall(pos int, tc openai.ToolCall) error {
	var key int
	switch {
	case tc.Index != nil:
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
	call.Arguments += tc.Function.Arguments
	return a.guard.write(fmt.Sprintf("tool call %d arguments", n), tc.Function.Arguments)
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
	if a.reason == "" {
		return Response{}, errIncompleteStream
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
