package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Model is one entry of the GET /models list a server started WithModels answers;
// MaxModelLen is vLLM's addition to the OpenAI shape (0: left out).
type Model struct {
	ID          string `json:"id"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
}

// WithModels serves GET {base}/models listing these models, behind the same key check
// as chat completions. Without it the route answers 404, as some servers do.
func WithModels(models ...Model) Option {
	return func(s *Server) {
		s.Handle(s.basePath+"/models", func(w http.ResponseWriter, r *http.Request) {
			type card struct {
				Model
				Object  string `json:"object"`
				OwnedBy string `json:"owned_by"`
			}
			list := struct {
				Object string `json:"object"`
				Data   []card `json:"data"`
			}{Object: "list", Data: []card{}}
			for _, m := range models {
				list.Data = append(list.Data, card{Model: m, Object: "model", OwnedBy: "llmtest"})
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(list)
		})
	}
}

// WithRoute serves path (the whole path, e.g. "/api/show" or "/props": servers keep
// their own routes beside /v1) with h, for the questions a client asks beside chat
// completions. Requests to it are recorded too.
func WithRoute(path string, h http.HandlerFunc) Option {
	return func(s *Server) { s.Handle(path, h) }
}

// Handle adds a route; see WithRoute. A route under the base path checks the key first.
func (s *Server) Handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.routes == nil {
		s.routes = map[string]http.HandlerFunc{}
	}
	if strings.HasPrefix(path, s.basePath+"/") {
		inner := h
		h = func(w http.ResponseWriter, r *http.Request) {
			if s.authorised(w, r, false) {
				inner(w, r)
			}
		}
	}
	s.routes[path] = h
}

// route returns the handler added for path, if any.
func (s *Server) route(path string) http.HandlerFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.routes[path]
}
