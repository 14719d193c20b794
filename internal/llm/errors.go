package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
)

// StatusError is an error the endpoint reported, as an HTTP status or as an error event
// inside a stream (StatusCode 0 then). errors.Is matches it against ErrQuota, ErrAuth or
// ErrContextLength when it is one of those.
type StatusError struct {
	StatusCode int
	Type       string
	Code       string
	Message    string
	kind       error       // one of the sentinels, or nil
	header     http.Header // of the reply that carried it; its retry hints
}

func (e *StatusError) Error() string {
	var b strings.Builder
	if e.StatusCode > 0 {
		fmt.Fprintf(&b, "llm: endpoint answered status %d", e.StatusCode)
	} else {
		b.WriteString("llm: endpoint reported an error in its reply")
	}
	if tag := firstNonEmpty(e.Code, e.Type); tag != "" {
		fmt.Fprintf(&b, " (%s)", tag)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

func (e *StatusError) Unwrap() error { return e.kind }

func asStatusError(err error) (*StatusError, bool) {
	var se *StatusError
	ok := errors.As(err, &se)
	return se, ok
}

// streamError is an error the endpoint reported inside a 200 reply or stream.
func streamError(e *wireError) *StatusError {
	se := &StatusError{Type: e.Type, Code: e.Code, Message: e.Message}
	if se.Message == "" && se.Code == "" && se.Type == "" {
		se.Message = "the reply ended with finish_reason \"error\""
	}
	se.kind = kindOf(se)
	return se
}

// kindOf recognises the failures a caller must tell apart. Providers differ: OpenAI
// sends codes, vLLM and llama.cpp mostly only messages, so both are checked.
func kindOf(e *StatusError) error {
	tags := strings.ToLower(e.Code + " " + e.Type)
	msg := strings.ToLower(e.Message)
	switch {
	case e.StatusCode == 401 || e.StatusCode == 403 || strings.Contains(tags, "invalid_api_key"):
		return ErrAuth
	case e.StatusCode == 402 || containsAny(tags, "insufficient_quota", "billing_hard_limit", "billing_not_active") ||
		containsAny(msg, "exceeded your current quota", "check your plan and billing"):
		return ErrQuota
	case e.StatusCode >= 500:
		return nil
	case e.StatusCode == 413 || strings.Contains(tags, "context_length_exceeded") ||
		containsAny(msg, "maximum context length", "context length", "context window",
			"exceeds the available context size", "prompt is too long"):
		return ErrContextLength
	case e.StatusCode == 429 && strings.HasPrefix(msg, "request too large"):
		// Larger than the per-minute token limit: waiting cannot make it fit.
		return ErrContextLength
	}
	return nil
}

// retryableStatus: rate limits, overload and server faults are worth another try. An
// error inside a stream is, unless it names a fault of the request: the server already
// accepted the request, so most such errors are the provider failing midway.
func retryableStatus(e *StatusError) bool {
	switch {
	case e.kind != nil:
		return false
	case e.StatusCode == 0:
		return streamRetryable(e)
	case e.StatusCode == 408, e.StatusCode == 409, e.StatusCode == 429:
		return true
	case e.StatusCode == 501, e.StatusCode == 505:
		return false
	}
	return e.StatusCode >= 500
}

func streamRetryable(e *StatusError) bool {
	tags := strings.ToLower(e.Code + " " + e.Type)
	if containsAny(tags, "server_error", "rate_limit", "overloaded", "timeout", "unavailable") {
		return true
	}
	if containsAny(tags, "invalid_request", "invalid_parameter", "not_found", "permission") {
		return false
	}
	if n, err := strconv.Atoi(e.Code); err == nil { // OpenRouter's numeric codes
		return n == 408 || n == 429 || (n >= 500 && n != 501 && n != 505)
	}
	return true
}

// overloaded reports an endpoint saying it has more than it can take, as opposed to a
// fault: every agent sharing it should slow down.
func overloaded(e *StatusError) bool {
	switch e.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case 0:
		tags := strings.ToLower(e.Code + " " + e.Type)
		return e.Code == "429" || e.Code == "503" || containsAny(tags, "rate_limit", "overloaded")
	}
	return false
}

// errIncompleteStream: the stream ended without a finish_reason, i.e. it was cut.
var errIncompleteStream = errors.New("llm: stream ended before the reply was finished")

// errEmptyReply: a reply without choices, as OpenRouter sends while a model warms up.
var errEmptyReply = errors.New("llm: the reply holds no answer")

// transient reports transport failures of a single attempt: resets, refused or dropped
// connections, timeouts, truncated bodies, HTTP/2 stream resets.
func transient(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	var timeout *timeoutError
	switch {
	case errors.As(err, &timeout), errors.Is(err, errIncompleteStream), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE), errors.Is(err, errEmptyReply):
		return true
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false // the caller decides, knowing which context ended
	case errors.As(err, &netErr) && netErr.Timeout(), errors.As(err, &opErr):
		return true
	}
	s := err.Error()
	return strings.Contains(s, "http2: ") || strings.Contains(s, "stream error")
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func snippet(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
