// Package llmtest is a scripted stand-in for an OpenAI-compatible chat-completions
// endpoint, for tests. It speaks the wire protocol faithfully (JSON and server-sent
// event replies, error bodies, bearer or Azure api-key auth, the request checks of the
// real API) and records every request it receives. Recorded replays replies in the
// shapes real servers send (testdata/recorded), quirks included.
//
//	srv := llmtest.NewServer(t)
//	srv.Enqueue(
//		llmtest.RateLimited(2*time.Second),
//		llmtest.Calls(llmtest.ToolCall{Name: "read_file", Arguments: `{"path":"a.go"}`}),
//		llmtest.Text("done"),
//	)
//	client, _ := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
//	...
//	srv.Requests()[1].Messages // what the model was shown
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// DefaultAPIKey is the key a Server accepts unless WithAPIKey says otherwise.
const DefaultAPIKey = "sk-llmtest"

// RecordedRequest is one request the server received, decoded when it was JSON.
type RecordedRequest struct {
	ChatRequest
	Index      int // 0-based, in arrival order
	Method     string
	Path       string
	Query      url.Values
	Header     http.Header
	Body       []byte
	Deployment string // Azure route only
}

// Server is the fake endpoint. Script it with Enqueue and/or Reply before the code
// under test calls it; queued steps go first, then the Reply function.
type Server struct {
	tb       testing.TB
	srv      *httptest.Server
	basePath string
	apiKey   string

	mu       sync.Mutex
	queue    []Step
	reply    func(RecordedRequest) Step
	requests []RecordedRequest
	routes   map[string]http.HandlerFunc // beside chat completions: /models, /props, /api/show
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey sets the key the server accepts.
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithBasePath sets the path under which the API lives; default "/v1".
func WithBasePath(p string) Option {
	return func(s *Server) { s.basePath = "/" + strings.Trim(p, "/") }
}

// NewServer starts a server that is closed when the test ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{tb: tb, basePath: "/v1", apiKey: DefaultAPIKey}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL to configure a client with, e.g. http://127.0.0.1:1234/v1.
func (s *Server) URL() string { return s.srv.URL + s.basePath }

// APIKey is the key the server accepts.
func (s *Server) APIKey() string { return s.apiKey }

// Enqueue adds steps answering the next requests, in order.
func (s *Server) Enqueue(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, steps...)
}

// Reply sets the function answering requests once the queue is empty.
func (s *Server) Reply(f func(RecordedRequest) Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = f
}

// Pending is the number of queued steps not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns every request received so far, including refused ones.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

var azureRoute = regexp.MustCompile(`^/openai/deployments/([^/]+)/chat/completions$`)

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		Header: r.Header.Clone(), Body: body}
	rest, under := strings.CutPrefix(r.URL.Path, s.basePath)
	if s.basePath == "/" {
		rest, under = r.URL.Path, true
	}
	azure := azureRoute.FindStringSubmatch(rest)
	if azure != nil {
		rec.Deployment = azure[1]
	}
	decodeErr := json.Unmarshal(body, &rec.ChatRequest)
	s.record(&rec)
	if h := s.route(r.URL.Path); h != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
		return
	}

	switch {
	case !under || (rest != "/chat/completions" && azure == nil) || (azure != nil && rec.Query.Get("api-version") == ""):
		writeError(w, http.StatusNotFound, nil, APIError{Message: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path),
			Type: "invalid_request_error"})
	case r.Method != http.MethodPost:
		writeError(w, http.StatusMethodNotAllowed, nil, APIError{
			Message: fmt.Sprintf("Invalid method for URL (%s %s)", r.Method, r.URL.Path), Type: "invalid_request_error"})
	case !s.authorised(w, r, azure != nil):
	case decodeErr != nil:
		writeError(w, http.StatusBadRequest, nil, APIError{Message: "We could not parse the JSON body of your request. " +
			"(HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON " +
			"payload, but what was sent was not valid JSON.)", Type: "invalid_request_error"})
	default:
		if apiErr := validate(&rec.ChatRequest); apiErr != nil {
			writeError(w, http.StatusBadRequest, nil, *apiErr)
			return
		}
		s.serveStep(w, r, rec, s.next(rec))
	}
}

func (s *Server) record(rec *RecordedRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Index = len(s.requests)
	s.requests = append(s.requests, *rec)
}

// authorised checks the bearer token (or Azure's api-key header) and answers 401 if wrong.
func (s *Server) authorised(w http.ResponseWriter, r *http.Request, azure bool) bool {
	if azure {
		if r.Header.Get("api-key") == s.apiKey {
			return true
		}
		writeError(w, http.StatusUnauthorized, nil, APIError{Code: ptr("401"), Message: "Access denied due to " +
			"invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active " +
			"subscription and use a correct regional API endpoint for your resource."})
		return false
	}
	auth := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(auth, "Bearer ")
	switch {
	case auth == "" || !ok:
		writeError(w, http.StatusUnauthorized, nil, APIError{Message: "You didn't provide an API key. You need to " +
			"provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
			Type: "invalid_request_error"})
	case key != s.apiKey:
		writeError(w, http.StatusUnauthorized, nil, APIError{Message: fmt.Sprintf("Incorrect API key provided: %s. "+
			"You can find your API key at https://platform.openai.com/account/api-keys.", mask(key)),
			Type: "invalid_request_error", Code: ptr("invalid_api_key")})
	default:
		return true
	}
	return false
}

// next takes the step for rec: the queue first, then the Reply function.
func (s *Server) next(rec RecordedRequest) Step {
	s.mu.Lock()
	if len(s.queue) > 0 {
		st := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return st
	}
	f := s.reply
	s.mu.Unlock()
	if f != nil {
		return f(rec)
	}
	s.tb.Errorf("llmtest: request #%d has no scripted step", rec.Index)
	return Step{Status: http.StatusBadRequest, Error: &APIError{Message: fmt.Sprintf(
		"llmtest: no scripted step for request #%d", rec.Index), Type: "invalid_request_error", Code: ptr("llmtest_unscripted")}}
}

func writeError(w http.ResponseWriter, status int, h http.Header, e APIError) {
	for k, vs := range h {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{Error: e})
}

func mask(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:3] + strings.Repeat("*", len(key)-7) + key[len(key)-4:]
}
