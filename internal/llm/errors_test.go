package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassifyStatus(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		kind  error
		retry bool
	}{
		{name: "rate limit", err: &openai.APIError{HTTPStatusCode: 429, Code: "rate_limit_exceeded",
			Message: "Rate limit reached for gpt-4o on tokens per min (TPM)"}, retry: true},
		{name: "quota by code", err: &openai.APIError{HTTPStatusCode: 429, Code: "insufficient_quota"}, kind: ErrQuota},
		{name: "billing hard limit", err: &openai.APIError{HTTPStatusCode: 400, Type: "billing_hard_limit_reached"},
			kind: ErrQuota},
		{name: "quota by message", err: &openai.APIError{HTTPStatusCode: 429,
			Message: "You exceeded your current quota, please check your plan and billing details."}, kind: ErrQuota},
		{name: "payment required", err: &openai.RequestError{HTTPStatusCode: 402}, kind: ErrQuota},
		{name: "unauthorised", err: &openai.APIError{HTTPStatusCode: 401}, kind: ErrAuth},
		{name: "forbidden", err: &openai.RequestError{HTTPStatusCode: 403, Body: []byte("nope")}, kind: ErrAuth},
		{name: "context by code", err: &openai.APIError{HTTPStatusCode: 400, Code: "context_length_exceeded"},
			kind: ErrContextLength},
		{name: "context, vLLM wording", err: &openai.APIError{HTTPStatusCode: 400,
			Message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"},
			kind: ErrContextLength},
		{name: "context, llama.cpp wording", err: &openai.APIError{HTTPStatusCode: 400,
			Message: "the request exceeds the available context size, try increasing it"}, kind: ErrContextLength},
		{name: "request larger than the TPM limit", err: &openai.APIError{HTTPStatusCode: 429,
			Message: "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 45000."},
			kind: ErrContextLength},
		{name: "payload too large", err: &openai.RequestError{HTTPStatusCode: 413}, kind: ErrContextLength},
		{name: "server error", err: &openai.APIError{HTTPStatusCode: 500}, retry: true},
		{name: "5xx mentioning context is still a fault", err: &openai.APIError{HTTPStatusCode: 503,
			Message: "context window cache unavailable"}, retry: true},
		{name: "bad gateway HTML", err: &openai.RequestError{HTTPStatusCode: 502, Body: []byte("<html>")}, retry: true},
		{name: "not implemented", err: &openai.APIError{HTTPStatusCode: 501}},
		{name: "request timeout", err: &openai.APIError{HTTPStatusCode: 408}, retry: true},
		{name: "bad request", err: &openai.APIError{HTTPStatusCode: 400, Message: "Invalid 'messages'"}},
		{name: "error event in stream", err: fmt.Errorf("error, %w", &openai.APIError{Type: "server_error"}),
			retry: true},
		{name: "quota event in stream", err: fmt.Errorf("error, %w", &openai.APIError{Code: "insufficient_quota"}),
			kind: ErrQuota},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			se, ok := asStatusError(tc.err)
			require.True(t, ok)
			if tc.kind != nil {
				assert.ErrorIs(t, se, tc.kind)
			} else {
				for _, k := range []error{ErrQuota, ErrAuth, ErrContextLength} {
					assert.NotErrorIs(t, se, k)
				}
			}
			assert.Equal(t, tc.retry, retryableStatus(se))
			var apiErr *openai.APIError
			var reqErr *openai.RequestError
			assert.True(t, errors.As(se, &apiErr) || errors.As(se, &reqErr), "go-openai's error stays reachable")
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
		{name: "local validation", err: openai.ErrReasoningModelMaxTokensDeprecated},
		{name: "runaway", err: ErrRunaway},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, transient(tc.err))
		})
	}
}
