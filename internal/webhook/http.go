package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/google/go-github/v60/github"
)

// ServeHTTP receives one delivery. It answers in milliseconds: a delivery that
// a handler claims is written to disk before the 202, and processed later.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !s.enter() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.requests.Done()

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	// Fail closed: nothing is parsed or run without a valid SHA-256 signature.
	// The SHA-1 X-Hub-Signature header is never consulted.
	if err := verifySignature(s.cfg.Secret, body, r.Header.Get("X-Hub-Signature-256")); err != nil {
		s.stats.rejectedSignature.Add(1)
		s.log.Warn("webhook signature rejected", "error", err, "remote_addr", r.RemoteAddr)
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	event, id := r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery")
	if event == "" || id == "" {
		http.Error(w, "missing X-GitHub-Event or X-GitHub-Delivery", http.StatusBadRequest)
		return
	}
	if !validID.MatchString(id) {
		http.Error(w, "malformed X-GitHub-Delivery", http.StatusBadRequest)
		return
	}
	payload, err := payloadOf(r.Header.Get("Content-Type"), body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if event == "ping" {
		_, _ = io.WriteString(w, "pong\n")
		return
	}
	claimed := len(s.routes[event]) > 0
	if err := validate(event, payload, claimed); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !claimed {
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "ignored\n")
		return
	}
	s.accept(w, r, record{ID: id, Event: event, Payload: payload, ReceivedAt: time.Now().UTC()})
}

// accept dedupes a delivery, makes it durable and queues it.
// A redelivery that arrives while the first copy is still being written waits for it:
// acknowledging it at once would lose the delivery if that write then failed.
func (s *Server) accept(w http.ResponseWriter, r *http.Request, rec record) {
	for {
		claimed, stored, wait := s.beginStoring(rec.ID)
		if stored {
			s.stats.duplicate.Add(1)
			_, _ = io.WriteString(w, "duplicate\n")
			return
		}
		if claimed {
			break
		}
		select {
		case <-wait:
		case <-r.Context().Done():
			http.Error(w, "the same delivery is being stored", http.StatusServiceUnavailable)
			return
		}
	}
	err := s.store.put(rec)
	s.endStoring(rec.ID, err == nil)
	if err != nil { // not acknowledged: GitHub may redeliver it
		s.log.Error("webhook delivery not stored", "error", err, LogKeyDeliveryID, rec.ID, LogKeyEvent, rec.Event)
		http.Error(w, "cannot store delivery", http.StatusInternalServerError)
		return
	}
	s.stats.accepted.Add(1)
	s.enqueue(rec.ID)
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "accepted\n")
}

// payloadOf extracts the JSON payload from a body of either content type
// GitHub sends.
func payloadOf(contentType string, body []byte) ([]byte, error) {
	if contentType == "" {
		return body, nil
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, fmt.Errorf("bad Content-Type %q: %w", contentType, err)
	}
	switch mediaType {
	case "application/json":
		return body, nil
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, fmt.Errorf("parse form body: %w", err)
		}
		return []byte(form.Get("payload")), nil
	default:
		return nil, fmt.Errorf("unsupported Content-Type %q", mediaType)
	}
}

// validate checks that payload parses as the event it claims to be. An event
// go-github does not know is checked only as JSON, and only if claimed.
func validate(event string, payload []byte, claimed bool) error {
	if github.EventForType(event) == nil {
		if claimed && !json.Valid(payload) {
			return fmt.Errorf("malformed %s payload", event)
		}
		return nil
	}
	if _, err := github.ParseWebHook(event, payload); err != nil {
		return fmt.Errorf("malformed %s payload: %w", event, err)
	}
	return nil
}
