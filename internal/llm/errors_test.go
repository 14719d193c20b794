package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassifyStatus(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		kind   error
		retry  bool
	}{
		{name: "rate limit", status: 429, retry: true, body: `{"error":{"message":"Rate limit reached for gpt-4o ` +
			`on tokens per min (TPM)","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`},
		{name: "quota by code", status: 429, kind: ErrQuota, body: `{"error":{"message":"","code":"insufficient_quota"}}`},
		{name: "billing hard limit", status: 400, kind: ErrQuota, body: `{"error":{"type":"billing_hard_limit_reached"}}`},
		{name: "quota by message", status: 429, kind: ErrQuota,
			body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details."}}`},
		{name: "payment required", status: 402, kind: ErrQuota, body: `{"error":{"code":402,"message":"Insufficient credits"}}`},
		{name: "unauthorised", status: 401, kind: ErrAuth, body: `{"error":{"message":"bad key"}}`},
		{name: "forbidden", status: 403, kind: ErrAuth, body: "nope"},
		{name: "context by code", status: 400, kind: ErrContextLength, body: `{"error":{"code":"context_length_exceeded"}}`},
		{name: "context, DeepSeek", status: 400, kind: ErrContextLength, body: `{"error":{"message":"This model's ` +
			`maximum context length is 131072 tokens. However, you requested 141980 tokens (133980 in the messages, ` +
			`8000 in the completion). Please reduce the length of the messages or completion.","type":` +
			`"invalid_request_error","param":null,"code":"invalid_request_error"}}`},
		{name: "context, vLLM error object", status: 400, kind: ErrContextLength, body: `{"object":"error","message":` +
			`"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",` +
			`"type":"BadRequestError","param":null,"code":400}`},
		{name: "context, llama.cpp wording", status: 400, kind: ErrContextLength, body: `{"error":{"code":400,` +
			`"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`},
		{name: "request larger than the TPM limit", status: 429, kind: ErrContextLength, body: `{"error":{"message":` +
			`"Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 45000."}}`},
		{name: "payload too large", status: 413, kind: ErrContextLength, body: ""},
		{name: "server error", status: 500, retry: true, body: `{"error":{"message":"boom","type":"server_error"}}`},
		{name: "5xx mentioning context is still a fault", status: 503, retry: true,
			body: `{"error":{"message":"context window cache unavailable"}}`},
		{name: "bad gateway HTML", status: 502, retry: true, body: "<html>Bad Gateway</html>"},
		{name: "not implemented", status: 501, body: `{"error":"not implemented"}`},
		{name: "request timeout", status: 408, retry: true, body: `{"error":{"code":408,"message":"timed out"}}`},
		{name: "bad request", status: 400, body: `{"error":{"message":"Invalid 'messages'"}}`},
		{name: "FastAPI detail", status: 400, body: `{"detail":"Model not loaded"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			se := readStatusError(&http.Response{StatusCode: tc.status, Header: http.Header{},
				Body: io.NopCloser(strings.NewReader(tc.body))})
			if tc.kind != nil {
				assert.ErrorIs(t, se, tc.kind)
			} else {
				for _, k := range []error{ErrQuota, ErrAuth, ErrContextLength} {
					assert.NotErrorIs(t, se, k)
				}
			}
			assert.Equal(t, tc.retry, retryableStatus(se))
			assert.Contains(t, se.Error(), fmt.Sprintf("status %d", tc.status))
		})
	}
}

func TestClassifyErrorInsideAReply(t *testing.T) {
	tests := []struct {
		name  string
		event string
		kind  error
		retry bool
	}{
		{name: "OpenAI server error", retry: true,
			event: `{"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error"}}`},
		{name: "OpenRouter, string code", retry: true,
			event: `{"error":{"code":"server_error","message":"Provider disconnected unexpectedly"}}`},
		{name: "OpenRouter, numeric code 502", retry: true, event: `{"error":{"code":502,"message":"upstream failed"}}`},
		{name: "OpenRouter, numeric code 400", event: `{"error":{"code":400,"message":"bad input"}}`},
		{name: "no detail at all", retry: true, event: `{"error":{"message":"Internal error"}}`},
		{name: "quota", kind: ErrQuota, event: `{"error":{"code":"insufficient_quota","message":"out of credit"}}`},
		{name: "invalid request", event: `{"error":{"type":"invalid_request_error","message":"bad"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r wireReply
			require.NoError(t, json.Unmarshal([]byte(tc.event), &r))
			se := streamError(r.failure())
			if tc.kind != nil {
				assert.ErrorIs(t, se, tc.kind)
			}
			assert.Equal(t, tc.retry, retryableStatus(se))
			assert.Contains(t, se.Error(), "reported an error in its reply")
		})
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "reset", err: &net.OpError{Op: "read", Err: syscall.ECONNRESET}, want: true},
		{name: "refused", err: fmt.Errorf("dial: %w", syscall.ECONNREFUSED), want: true},
		{name: "unexpected EOF", err: io.ErrUnexpectedEOF, want: true},
		{name: "cut stream", err: errIncompleteStream, want: true},
		{name: "attempt timeout", err: &timeoutError{err: context.DeadlineExceeded}, want: true},
		{name: "http2 reset", err: errors.New("http2: server sent GOAWAY and closed the connection"), want: true},
		{name: "caller cancelled", err: context.Canceled},
		{name: "local validation", err: errors.New("llm: request has no model")},
		{name: "runaway", err: ErrRunaway},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, transient(tc.err))
		})
	}
}
