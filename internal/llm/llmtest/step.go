package llmtest

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// ToolCall is a tool call the scripted model makes. An empty ID gets one assigned.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Step scripts the answer to one request: a reply, or a fault.
//
// A reply is Content and/or ToolCalls (or a Refusal). Streamed, it goes out as the real
// API sends it: a role delta, content in ChunkSize-byte deltas, each tool call as a first
// delta with id, type and name then its arguments in pieces, a finish delta, a usage chunk
// when the request asked for include_usage, then "data: [DONE]".
//
// A fault is a Status >= 400 (with Error or Body and Header), or Drop.
type Step struct {
	Content      string
	Refusal      string
	ToolCalls    []ToolCall
	FinishReason string // default: "tool_calls" with tool calls, "content_filter" with a refusal, else "stop"
	Usage        *Usage // default: a rough estimate from the text sizes
	ChunkSize    int    // bytes per streamed delta; default 4

	Status int         // >= 400: answer with this status and an error body
	Error  *APIError   // the error body; default one that fits Status
	Body   string      // a raw body instead of Error, e.g. a proxy's HTML page
	Header http.Header // extra response headers (Retry-After, x-ratelimit-*), on replies too

	Recorded string // replay testdata/recorded/<Recorded>.http instead; see Recorded

	Drop       bool          // hijack the connection and close it
	DropAfter  int           // with Drop while streaming: send this many chunks first
	Delay      time.Duration // wait before answering; ends early if the client leaves
	ChunkDelay time.Duration // wait between streamed chunks
}

// Text is a plain reply.
func Text(content string) Step { return Step{Content: content} }

// Calls is a reply calling tools (in parallel when more than one).
func Calls(calls ...ToolCall) Step { return Step{ToolCalls: calls} }

// Refusal is a reply where the model declines.
func Refusal(text string) Step { return Step{Refusal: text} }

// Dropped closes the connection without an answer.
func Dropped() Step { return Step{Drop: true} }

// Fault answers status with the error body the real API would send for it.
func Fault(status int) Step { return Step{Status: status} }

// RateLimited answers 429 with a Retry-After of d (whole seconds, rounded up).
func RateLimited(d time.Duration) Step {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	return Step{Status: http.StatusTooManyRequests, Header: h}
}

// QuotaExceeded is OpenAI's answer when the account is out of credit.
func QuotaExceeded() Step {
	return Step{Status: http.StatusTooManyRequests, Error: &APIError{
		Message: "You exceeded your current quota, please check your plan and billing details. " +
			"For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
		Type: "insufficient_quota", Code: ptr("insufficient_quota"),
	}}
}

// ContextTooLong is OpenAI's answer when the conversation exceeds the context window.
func ContextTooLong() Step {
	return Step{Status: http.StatusBadRequest, Error: &APIError{
		Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in " +
			"131072 tokens. Please reduce the length of the messages.",
		Type: "invalid_request_error", Param: ptr("messages"), Code: ptr("context_length_exceeded"),
	}}
}

// defaultError is the body the real API sends for status.
func defaultError(status int) APIError {
	switch {
	case status == http.StatusUnauthorized:
		return APIError{Message: "Incorrect API key provided.", Type: "invalid_request_error", Code: ptr("invalid_api_key")}
	case status == http.StatusForbidden:
		return APIError{Message: "You are not allowed to access this resource.", Type: "permission_error"}
	case status == http.StatusNotFound:
		return APIError{Message: "The model does not exist or you do not have access to it.",
			Type: "invalid_request_error", Code: ptr("model_not_found")}
	case status == http.StatusTooManyRequests:
		return APIError{Message: "Rate limit reached for requests per min (RPM). Please try again later.",
			Type: "requests", Code: ptr("rate_limit_exceeded")}
	case status == http.StatusServiceUnavailable:
		return APIError{Message: "The engine is currently overloaded, please try again later.", Type: "server_error"}
	case status >= 500:
		return APIError{Message: "The server had an error while processing your request. Sorry about that!",
			Type: "server_error"}
	}
	return APIError{Message: fmt.Sprintf("Request failed with status %d.", status), Type: "invalid_request_error"}
}

func ptr[T any](v T) *T { return &v }
