package webhook

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/logkey"
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

	// Fail closed, and cheaply first: nothing is read, parsed or run without a valid
	// SHA-256 signature, and a request that cannot be a delivery is refused before its
	// body is read. The SHA-1 X-Hub-Signature header is never consulted.
	want, err := parseSignature(r.Header.Get("X-Hub-Signature-256"))
	if err != nil {
		s.refuse(w, r, &refusal{http.StatusUnauthorized, "invalid signature", err})
		return
	}
	event, id := r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery")
	if event == "" || id == "" {
		s.refuse(w, r, &refusal{status: http.StatusBadRequest, msg: "missing X-GitHub-Event or X-GitHub-Delivery"})
		return
	}
	if !validID.MatchString(id) {
		s.refuse(w, r, &refusal{status: http.StatusBadRequest, msg: "malformed X-GitHub-Delivery"})
		return
	}
	body, ref := s.receive(w, r, want)
	if ref != nil {
		s.refuse(w, r, ref)
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

// refuse answers a request the intake turned away, and logs why when it is worth it.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, ref *refusal) {
	switch {
	case ref.status == http.StatusUnauthorized:
		s.stats.rejectedSignature.Add(1)
		s.log.Warn("webhook signature rejected", "error", ref.err, "remote_addr", r.RemoteAddr)
	case ref.err != nil:
		s.log.Error("webhook body not received", "error", ref.err, "remote_addr", r.RemoteAddr)
	}
	// Nothing more is read from a refused sender: net/http would otherwise read on, looking
	// for the end of the body to keep the connection, for as long as the sender trickles.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	w.Header().Set("Connection", "close")
	http.Error(w, ref.msg, ref.status)
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
		s.log.Error("webhook delivery not stored", "error", err, logkey.DeliveryID, rec.ID, logkey.Event, rec.Event)
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
