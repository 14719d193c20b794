package ghtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// TokenRequest is one installation token the fake handed out.
type TokenRequest struct {
	InstallationID int64
	Token          string
	Authorization  string // the app JWT it was fetched with
}

func (s *Server) appRoutes() {
	s.handle("GET app", s.getApp)
	s.handle("POST app/installations/{id}/access_tokens", s.createToken)
	s.handle("GET app/hook/deliveries", s.listDeliveries)
}

func (s *Server) getApp(w http.ResponseWriter, r *http.Request) {
	s.State.mu.Lock()
	defer s.State.mu.Unlock()
	writeJSON(w, http.StatusOK, s.State.example("integration"))
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	id, _ := pathInt(r, "id")
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "Bearer ") {
		writeJSON(w, http.StatusUnauthorized, obj{
			"message": "A JSON web token could not be decoded", "documentation_url": "https://docs.github.com/rest",
		})
		return
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	st.tokens++
	tok := st.example("installation-token")
	token := fmt.Sprintf("ghs_fake_%d_%d", id, st.tokens)
	tok["token"] = token
	tok["expires_at"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	st.tokenLog = append(st.tokenLog, TokenRequest{InstallationID: id, Token: token, Authorization: auth})
	writeJSON(w, http.StatusCreated, tok)
}

// Tokens returns the installation tokens handed out so far.
func (st *State) Tokens() []TokenRequest {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]TokenRequest(nil), st.tokenLog...)
}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	s.State.mu.Lock()
	defer s.State.mu.Unlock()
	out := append([]obj{}, s.State.deliveries...)
	writeJSON(w, http.StatusOK, out)
}
