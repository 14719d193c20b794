package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxReply bounds a non-streamed reply body; the runaway limits bound it further.
const maxReply = 32 << 20

// post sends one chat-completion request body and returns the response when the
// server accepted it; an error status comes back as a *StatusError. The caller closes
// the body.
func (c *OpenAI) post(ctx context.Context, model string, body []byte, stream bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(model), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("llm: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Cache-Control", "no-cache")
	}
	switch {
	case c.azure:
		req.Header.Set("api-key", c.apiKey)
	case c.apiKey != "":
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		return nil, readStatusError(resp)
	}
	return resp, nil
}

// endpoint is the chat-completions URL: {base}/chat/completions, or for Azure
// {resource}/openai/deployments/{model}/chat/completions?api-version=...
func (c *OpenAI) endpoint(model string) string {
	base := strings.TrimRight(c.baseURL, "/")
	if !c.azure {
		if c.apiVersion != "" { // some gateways in front of OpenAI-style servers want it too
			return base + "/chat/completions?api-version=" + url.QueryEscape(c.apiVersion)
		}
		return base + "/chat/completions"
	}
	return base + "/openai/deployments/" + url.PathEscape(model) + "/chat/completions?api-version=" +
		url.QueryEscape(c.apiVersion)
}

// readStatusError reads an error reply. Servers word it differently: OpenAI's
// {"error": {...}}, {"error": "text"}, vLLM's {"object": "error", ...}, FastAPI's
// {"detail": ...}, or a proxy's HTML page.
func readStatusError(resp *http.Response) *StatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	se := &StatusError{StatusCode: resp.StatusCode, header: resp.Header}
	var r wireReply
	var detail struct {
		Detail json.RawMessage `json:"detail"`
	}
	switch {
	case json.Unmarshal(body, &r) == nil && r.failure() != nil:
		e := r.failure()
		se.Type, se.Code, se.Message = e.Type, e.Code, e.Message
	case json.Unmarshal(body, &detail) == nil && len(detail.Detail) > 0:
		se.Message = messageText(detail.Detail)
	default:
		se.Message = snippet(string(body))
	}
	se.kind = kindOf(se)
	return se
}

// readReply reads a non-streamed reply.
func readReply(resp *http.Response) (*wireReply, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxReply+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxReply {
		return nil, fmt.Errorf("%w: reply exceeds %d bytes", ErrRunaway, maxReply)
	}
	var r wireReply
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("llm: unreadable reply (%v): %s", err, snippet(string(body)))
	}
	return &r, nil
}
