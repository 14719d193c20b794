package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// serveStep answers rec as st scripts.
func (s *Server) serveStep(w http.ResponseWriter, r *http.Request, rec RecordedRequest, st Step) {
	if !wait(r.Context(), st.Delay) {
		return
	}
	if st.Recorded != "" {
		s.replay(w, r, rec, st)
		return
	}
	if st.Drop && (!rec.Stream || st.DropAfter <= 0) {
		hangUp(w)
		return
	}
	if st.Status >= 400 {
		if st.Body != "" {
			for k, vs := range st.Header {
				w.Header()[k] = vs
			}
			w.WriteHeader(st.Status)
			_, _ = w.Write([]byte(st.Body))
			return
		}
		e := defaultError(st.Status)
		if st.Error != nil {
			e = *st.Error
		}
		writeError(w, st.Status, st.Header, e)
		return
	}
	for k, vs := range st.Header {
		w.Header()[k] = vs
	}
	w.Header().Set("X-Request-Id", fmt.Sprintf("req_llmtest_%d", rec.Index))
	calls := wireCalls(rec.Index, st.ToolCalls)
	usage := st.usage(rec.ChatRequest)
	id := fmt.Sprintf("chatcmpl-llmtest-%d", rec.Index)
	if rec.Stream {
		s.stream(w, r, reply{rec: rec, step: st, id: id, calls: calls, usage: usage})
		return
	}
	msg := replyMessage{Role: "assistant"}
	if st.Content != "" || (len(calls) == 0 && st.Refusal == "") {
		msg.Content = ptr(st.Content)
	}
	if st.Refusal != "" {
		msg.Refusal = ptr(st.Refusal)
	}
	msg.ToolCalls = calls
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(completion{
		ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: rec.Model,
		SystemFingerprint: "fp_llmtest", Usage: usage,
		Choices: []choice{{Index: 0, Message: msg, FinishReason: st.finishReason()}},
	})
}

// reply is one answer being written: the request it answers, the scripted step, and what
// was worked out from them.
type reply struct {
	rec   RecordedRequest
	step  Step
	id    string
	calls []WireToolCall
	usage Usage
}

// stream sends the reply as server-sent events, chunk by chunk, as the real API does.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rp reply) {
	rec, st, id, calls, usage := rp.rec, rp.step, rp.id, rp.calls, rp.usage
	includeUsage := rec.StreamOptions != nil && rec.StreamOptions.IncludeUsage
	base := chunk{ID: id, Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: rec.Model,
		SystemFingerprint: "fp_llmtest"}
	var chunks []chunk
	add := func(d delta, finish *string) {
		c := base
		c.Choices = []chunkChoice{{Index: 0, Delta: d, FinishReason: finish}}
		if includeUsage {
			c.Usage = json.RawMessage("null")
		}
		chunks = append(chunks, c)
	}
	size := st.ChunkSize
	if size <= 0 {
		size = 4
	}
	add(delta{Role: "assistant", Content: ptr("")}, nil)
	for _, piece := range split(st.Content, size) {
		add(delta{Content: ptr(piece)}, nil)
	}
	for _, piece := range split(st.Refusal, size) {
		add(delta{Refusal: ptr(piece)}, nil)
	}
	for i, tc := range calls {
		add(delta{ToolCalls: []toolCallDelta{{Index: i, ID: tc.ID, Type: "function",
			Function: functionDelta{Name: tc.Function.Name}}}}, nil)
		for _, piece := range split(tc.Function.Arguments, size) {
			add(delta{ToolCalls: []toolCallDelta{{Index: i, Function: functionDelta{Arguments: piece}}}}, nil)
		}
	}
	add(delta{}, ptr(st.finishReason()))
	if includeUsage {
		c := base
		c.Choices, c.Usage = []chunkChoice{}, usage
		chunks = append(chunks, c)
	}

	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
	for n, c := range chunks {
		if st.Drop && n == st.DropAfter {
			hangUp(w)
			return
		}
		if n > 0 && !wait(r.Context(), st.ChunkDelay) {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			s.tb.Errorf("llmtest: encoding a chunk: %v", err)
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return // the client stopped reading
		}
		flush(w)
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	flush(w)
}

func (st Step) finishReason() string {
	switch {
	case st.FinishReason != "":
		return st.FinishReason
	case st.Refusal != "":
		return "content_filter"
	case len(st.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// usage is the scripted usage, or roughly four bytes a token.
func (st Step) usage(req ChatRequest) Usage {
	if st.Usage != nil {
		u := *st.Usage
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		return u
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += 4 + len(m.Content)/4
		for _, tc := range m.ToolCalls {
			prompt += len(tc.Function.Arguments) / 4
		}
	}
	out := 1 + len(st.Content)/4 + len(st.Refusal)/4
	for _, tc := range st.ToolCalls {
		out += len(tc.Arguments) / 4
	}
	return Usage{PromptTokens: prompt, CompletionTokens: out, TotalTokens: prompt + out}
}

func wireCalls(req int, calls []ToolCall) []WireToolCall {
	var out []WireToolCall
	for i, c := range calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_llmtest_%d_%d", req, i)
		}
		out = append(out, WireToolCall{ID: id, Type: "function",
			Function: WireFunction{Name: c.Name, Arguments: c.Arguments}})
	}
	return out
}

// split cuts s into pieces of about n bytes without breaking UTF-8 sequences.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// hangUp closes the connection under the handler: the client sees a reset or EOF.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: connection cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
