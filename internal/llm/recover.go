package llm

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Many models served without a working tool-call parser write their calls into the
// reply's text: Ollama's qwen2.5-coder as bare JSON with finish_reason "stop", others in
// a ```json fence, Hermes and Qwen in <tool_call> tags, Qwen3-Coder as <function=...>
// markup, Llama 3 after <|python_tag|>. llama.cpp sometimes parses the call and still
// leaves its markup in the text. recoverText turns such text into real calls, for the
// tools the request offered only (a JSON test fixture or a package.json that happens
// to have a "name" is not a call), and strips the markup so that it never enters the
// history.

// recoverText applies the recovery to a reply when the client is configured for it and
// the request does not ask for native calls only.
func (c *OpenAI) recoverText(ctx context.Context, resp Response, req Request) Response {
	tools := req.Tools
	if !c.recoverCalls || req.NativeCallsOnly || len(tools) == 0 || resp.Refused() || resp.Message.Content == "" {
		return resp
	}
	native := len(resp.Message.ToolCalls) > 0
	r := recoverCalls(resp.Message.Content, tools, native)
	if r.format == "" {
		return resp
	}
	resp.Message.Content = r.rest
	resp.Recovered = r.format
	if !native {
		for i := range r.calls {
			r.calls[i].ID = newCallID(i)
		}
		resp.Message.ToolCalls = r.calls
		if resp.FinishReason == FinishStop {
			resp.FinishReason = FinishToolCalls
		}
	}
	c.log.InfoContext(ctx, "llm: tool calls taken from the reply's text", "format", r.format,
		"calls", len(r.calls), "native_calls", native)
	return resp
}

// recovery is what recoverCalls found: the calls, the text without them, and the
// formats they were written in (empty when nothing was found).
type recovery struct {
	calls  []ToolCall
	rest   string
	format string
}

// span is a piece of the text that holds calls or markup.
type span struct {
	start, end int
	calls      []ToolCall
	format     string
}

// recoverCalls finds calls in text. With native calls present only leaked markup is
// stripped; the text is not searched for further calls.
func recoverCalls(text string, tools []Tool, native bool) recovery {
	offered := offeredTools(tools)
	markup := markupSpans(text, offered)
	if native {
		r := strip(text, markup, leakedMarkup)
		r.calls = nil // the server's own calls stand
		return r
	}
	var spans []span
	for _, s := range markup {
		if len(s.calls) > 0 {
			spans = append(spans, s)
		}
	}
	fenced, opaque := fencedSpans(text, offered, spans)
	spans = append(spans, fenced...)
	spans = append(spans, bareSpans(text, offered, append(slices.Clone(spans), opaque...))...)
	return strip(text, spans, "")
}

// strip removes spans from text and gathers their calls in text order.
func strip(text string, spans []span, prefix string) recovery {
	if len(spans) == 0 {
		return recovery{rest: text}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var r recovery
	var rest strings.Builder
	var formats []string
	at := 0
	for _, s := range spans {
		rest.WriteString(text[at:s.start])
		at = s.end
		r.calls = append(r.calls, s.calls...)
		if !slices.Contains(formats, s.format) {
			formats = append(formats, s.format)
		}
	}
	rest.WriteString(text[at:])
	r.rest = strings.TrimSpace(blankLines.ReplaceAllString(rest.String(), "\n\n"))
	r.format = prefix + strings.Join(formats, ", ")
	return r
}

var blankLines = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)

// Markup of the chat templates that write calls as text.
var (
	toolCallTag = regexp.MustCompile(`(?s)<tool_call>(.*?)(?:</tool_call>|\z)`)
	functionTag = regexp.MustCompile(`(?s)<function=([^>\s]+)>(.*?)(?:</function>|\z)`)
	pythonTag   = regexp.MustCompile(`(?s)<\|python_tag\|>(.*?)(?:<\|eom_id\|>|<\|eot_id\|>|\z)`)
	fence       = regexp.MustCompile("(?s)```([A-Za-z0-9_+-]*)[ \t]*\r?\n(.*?)```")
)

// markupSpans finds <tool_call>, <function=...> and <|python_tag|> blocks, with the
// calls to offered tools each holds (none when it does not parse).
func markupSpans(text string, offered map[string]map[string]string) []span {
	var spans []span
	for _, m := range toolCallTag.FindAllStringSubmatchIndex(text, -1) {
		inner := text[m[2]:m[3]]
		s := span{start: m[0], end: m[1], format: "tool_call tags"}
		if functionTag.MatchString(inner) {
			s.calls, s.format = xmlCalls(inner, offered), "qwen3-coder markup"
		} else {
			s.calls = jsonCalls(inner, offered)
		}
		spans = append(spans, s)
	}
	for _, m := range functionTag.FindAllStringSubmatchIndex(text, -1) {
		if inside(spans, m[0]) {
			continue
		}
		spans = append(spans, span{start: m[0], end: m[1], format: "qwen3-coder markup",
			calls: xmlCalls(text[m[0]:m[1]], offered)})
	}
	for _, m := range pythonTag.FindAllStringSubmatchIndex(text, -1) {
		if inside(spans, m[0]) {
			continue
		}
		spans = append(spans, span{start: m[0], end: m[1], format: "llama python_tag",
			calls: jsonCalls(text[m[2]:m[3]], offered)})
	}
	return spans
}

// fencedSpans finds ```json blocks (or unlabelled ones) that hold calls. Blocks in
// another language (```go, ```python) are returned as opaque: code is never searched
// for calls.
func fencedSpans(text string, offered map[string]map[string]string, taken []span) (calls, opaque []span) {
	for _, m := range fence.FindAllStringSubmatchIndex(text, -1) {
		if inside(taken, m[0]) {
			continue
		}
		s := span{start: m[0], end: m[1], format: "fenced json"}
		switch strings.ToLower(text[m[2]:m[3]]) {
		case "", "json", "jsonc", "json5", "tool_call", "tool_code", "tool":
			if s.calls = jsonCalls(text[m[4]:m[5]], offered); len(s.calls) > 0 {
				calls = append(calls, s)
				continue
			}
		}
		opaque = append(opaque, s)
	}
	return calls, opaque
}

// bareSpans finds JSON calls written straight into the text, outside the taken spans.
func bareSpans(text string, offered map[string]map[string]string, taken []span) []span {
	var spans []span
	for i := 0; i < len(text); i++ {
		if s, ok := spanAt(taken, i); ok {
			i = s.end - 1
			continue
		}
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		raw, n := jsonValueAt(text, i)
		if n == 0 {
			continue
		}
		if calls := callsIn(raw, offered); len(calls) > 0 {
			spans = append(spans, span{start: i, end: i + n, calls: calls, format: "json"})
		}
		i += n - 1 // a JSON value that is not a call is skipped whole, its insides too
	}
	return spans
}

func inside(spans []span, at int) bool {
	_, ok := spanAt(spans, at)
	return ok
}

func spanAt(spans []span, at int) (span, bool) {
	for _, s := range spans {
		if at >= s.start && at < s.end {
			return s, true
		}
	}
	return span{}, false
}
