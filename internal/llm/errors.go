package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	openai "github.com/sashabaranov/go-openai"
)

// StatusError is an error the endpoint reported, as an HTTP status or as an error event
// inside a stream (StatusCode 0 then). errors.Is matches it against ErrQuota, ErrAuth or
// ErrContextLength when it is one of those; errors.As still reaches go-openai's error.
type StatusError struct {
	StatusCode int
	Type       string
	Code       string
	Message    string
	kind       error // one of the sentinels, or nil
	cause      error
}

func (e *StatusError) Error() string {
	var b strings.Builder
	if e.StatusCode > 0 {
		fmt.Fprintf(&b, "llm: endpoint answered status %d", e.StatusCode)
	} else {
		b.WriteString("llm: endpoint reported an error in the stream")
	}
	if tag := firstNonEmpty(e.Code, e.Type); tag != "" {
		fmt.Fprintf(&b, " (%s)", tag)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

func (e *StatusError) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

// asStatusError turns go-openai's error shapes into a StatusError; ok is false for
// errors that never reached an HTTP answer (transport, local validation).
func asStatusError(err error) (*StatusError, bool) {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var se *StatusError
	switch {
	case errors.As(err, &apiErr):
		se = &StatusError{StatusCode: apiErr.HTTPStatusCode, Type: apiErr.Type,
			Code: codeString(apiErr.Code), Message: apiErr.Message, cause: err}
	case errors.As(err, &reqErr):
		// A body that is not an OpenAI error object, e.g. a proxy's HTML 502 page.
		se = &StatusError{StatusCode: reqErr.HTTPStatusCode, Message: snippet(string(reqErr.Body)), cause: err}
	default:
		return nil, false
	}
	se.kind = kindOf(se)
	return se, true
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

// retryableStatus: rate limits, overload and server faults are worth another try.
func retryableStatus(e *StatusError) bool {
	switch {
	case e.kind != nil:
		return false
	case e.StatusCode == 0:
		return containsAny(strings.ToLower(e.Code+" "+e.Type), "server_error", "rate_limit")
	case e.StatusCode == 408, e.StatusCode == 409, e.StatusCode == 429:
		return true
	case e.StatusCode == 501, e.StatusCode == 505:
		return false
	}
	return e.StatusCode >= 500
}

// errIncompleteStream: the stream ended without a finish_reason, i.e. it was cut.
var errIncompleteStream = errors.New("llm: stream ended before the reply was finished")

// transient reports transport failures of a single attempt: resets, refused or dropped
// connections, timeouts, truncated bodies, HTTP/2 stream resets.
func transient(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	var timeout *timeoutError
	switch {
	case errors.As(err, &timeout), errors.Is(err, errIncompleteStream), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return true
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false // the caller decides, knowing which context ended
	case errors.As(err, &netErr) && netErr.Timeout(), errors.As(err, &opErr):
		return true
	}
	s := err.Error()
	return strings.Contains(s, "http2: ") || strings.Contains(s, "stream error")
}

func codeString(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case int:
		if c == 0 { // go-openai decodes "code": null as 0
			return ""
		}
		return fmt.Sprint(c)
	case string:
		return c
	default:
		return fmt.Sprint(c)
	}
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
