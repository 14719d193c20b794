// Package ghtest is a fake GitHub REST API for tests: an httptest server under a
// non-empty base path, backed by in-memory state, that checks every request it receives
// and every response it sends against GitHub's own OpenAPI description.
package ghtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v60/github"
)

// BasePath is where the fake API lives; non-empty so absolute-URL bugs show up.
const BasePath = "/api-v3/"

// Request is one request the fake received.
type Request struct {
	Method   string
	Path     string // without BasePath, e.g. "repos/o/r/issues/1"
	RawQuery string
	Header   http.Header
	Body     []byte
}

// Server is the fake. Tests seed State, register extra handlers with Handle, script
// faults with Inject, and read what was sent with Requests.
type Server struct {
	URL   string // base URL, with BasePath and a trailing slash
	State *State

	actions *Actions // GitHub Actions: workflow runs, jobs, artifacts

	t         testing.TB
	srv       *httptest.Server
	spec      *Spec
	base      *url.URL
	builtin   *http.ServeMux
	overrides *http.ServeMux

	mu        sync.Mutex
	requests  []Request
	faults    []*Fault
	remaining int
	nextReqID int

	chaos       Chaos
	chaosRNG    *rand.Rand
	chaosTurn   int
	chaosCounts map[string]int
}

// NewServer starts a fake GitHub and closes it when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, builtin: http.NewServeMux(), overrides: http.NewServeMux(), remaining: 5000}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL + BasePath
	s.base, _ = url.Parse(s.URL)
	spec, err := NewSpec(strings.TrimSuffix(s.URL, "/"))
	if err != nil {
		t.Fatalf("ghtest: %v", err)
	}
	s.spec = spec
	s.State = newState(spec, s.URL)
	s.routes()
	return s
}

// Client returns a go-github client pointed at the fake, using hc (nil: a plain client).
func (s *Server) Client(hc *http.Client) *github.Client {
	c, err := github.NewClient(hc).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		s.t.Fatalf("ghtest: client for %s: %v", s.URL, err)
	}
	c.BaseURL, _ = url.Parse(s.URL)
	return c
}

// Handle registers a handler that takes precedence over the built-in ones. The pattern
// is relative to BasePath, e.g. "GET repos/{owner}/{repo}/issues/{n}".
func (s *Server) Handle(pattern string, h http.HandlerFunc) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	s.overrides.Handle(strings.TrimSpace(method+" "+BasePath+path), h)
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RateLimitRemaining reports the fake's primary rate-limit budget; like GitHub, a 304
// does not spend it.
func (s *Server) RateLimitRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remaining
}

func (s *Server) handle(pattern string, h http.HandlerFunc) {
	method, path, _ := strings.Cut(pattern, " ")
	s.builtin.Handle(method+" "+BasePath+path, h)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("ghtest: read request body of %s %s: %v", r.Method, r.URL.Path, err)
	}
	s.mu.Lock()
	s.nextReqID++
	reqID := fmt.Sprintf("FAKE:%04d", s.nextReqID)
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, BasePath),
		RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body,
	})
	s.mu.Unlock()

	in, verr := s.spec.ValidateRequest(r.Context(), r, s.base, body)
	if verr != nil {
		s.t.Errorf("ghtest: %v", verr)
	}
	chaos := ""
	if f := s.takeFault(r); f != nil && f.Lost {
		chaos = "lost-answer" // handled below, then dropped
	} else if f != nil {
		f.serve(w, r)
		return
	} else {
		chaos = s.takeChaos()
	}
	if chaos != "" && s.serveChaos(chaos, w, r) {
		return
	}

	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	if h, pattern := s.overrides.Handler(r); pattern != "" {
		h.ServeHTTP(rec, r)
	} else {
		s.builtin.ServeHTTP(rec, r)
	}
	res := rec.Result()
	out := rec.Body.Bytes()
	// A 401 is GitHub's answer to bad credentials on any operation, documented once
	// rather than per operation (like the rate limits of faults.go).
	if in != nil && verr == nil && res.StatusCode != http.StatusUnauthorized && !undocumented(in.Route.Method, in.Route.Path, res.StatusCode) {
		if err := s.spec.ValidateResponse(r.Context(), in, res.StatusCode, res.Header, out); err != nil {
			s.t.Errorf("ghtest: %v", err)
		}
	}

	status := res.StatusCode
	if r.Method == http.MethodGet && status == http.StatusOK {
		sum := sha256.Sum256(out)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		res.Header.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			status, out = http.StatusNotModified, nil
		}
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	s.rateHeaders(w.Header(), reqID, status != http.StatusNotModified)
	if chaos == "lost-answer" {
		(&Fault{Drop: true}).serve(w, r) // handled, but the answer never arrives
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// undocumentedAnswers are answers GitHub gives that its description does not list for
// the operation; the fake sends them unchecked (see testdata/README.md).
var undocumentedAnswers = map[string]bool{
	// A review, or the pull request it is on, that does not exist.
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews 404":             true,
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews 404":            true,
	"PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id} 404": true,
}

func undocumented(method, path string, status int) bool {
	return undocumentedAnswers[fmt.Sprintf("%s %s %d", method, path, status)]
}

func (s *Server) rateHeaders(h http.Header, reqID string, spend bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if spend && s.remaining > 0 {
		s.remaining--
	}
	h.Set("X-GitHub-Request-Id", reqID)
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(s.remaining))
	h.Set("X-RateLimit-Reset", "4102444800")
	h.Set("X-RateLimit-Resource", "core")
}
