package webhook

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// busyRetryAfter is what a request refused for want of room in the budget is told to wait.
const busyRetryAfter = 5 * time.Second

// refusal is a request the intake turns away, with the status it answers.
type refusal struct {
	status int
	msg    string
	err    error // what is logged; nil for the client's own mistakes
}

// receive reads r's body and returns it once its HMAC matches want, the signature the
// request claims. Until then the body is never in memory: it streams to a temporary file
// through the HMAC, within the server's budget of unverified bodies, a size bound and a
// minimum rate, so requests that cannot be authenticated cost a bounded amount of memory
// and disk however many arrive.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, want []byte) ([]byte, *refusal) {
	if r.ContentLength > s.cfg.MaxBody {
		s.stats.rejectedTooLarge.Add(1)
		return nil, &refusal{status: http.StatusRequestEntityTooLarge, msg: "body too large"}
	}
	// The body is charged what it declares; one without a length may grow to MaxBody.
	charge := r.ContentLength
	if charge < 0 {
		charge = s.cfg.MaxBody
	}
	if !s.unverified.take(charge) {
		s.stats.rejectedBusy.Add(1)
		w.Header().Set("Retry-After", strconv.Itoa(int(busyRetryAfter.Seconds())))
		return nil, &refusal{status: http.StatusServiceUnavailable, msg: "too many deliveries being received"}
	}
	f, size, ref := s.spool(w, r, want)
	s.unverified.give(charge)
	if ref != nil {
		return nil, ref
	}
	defer f.Close()
	// Only now, signed, is the body read into memory.
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, &refusal{http.StatusInternalServerError, "cannot read body", fmt.Errorf("read back delivery body: %w", err)}
	}
	return body, nil
}

// spool copies r's body into an unlinked temporary file in the queue directory, hashing
// it on the way, and returns the file rewound once the hash matches want.
func (s *Server) spool(w http.ResponseWriter, r *http.Request, want []byte) (*os.File, int64, *refusal) {
	f, err := os.CreateTemp(s.cfg.QueueDir, tmpPrefix+"body-*")
	if err != nil {
		return nil, 0, &refusal{http.StatusServiceUnavailable, "cannot receive body", fmt.Errorf("create a file for a delivery body: %w", err)}
	}
	// Unlinked at once: its space comes back when the request ends, even if the process dies.
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close()
		return nil, 0, &refusal{http.StatusServiceUnavailable, "cannot receive body", fmt.Errorf("unlink delivery body file: %w", err)}
	}
	mac := newMAC(s.cfg.Secret)
	body := s.pace(w, r)
	// A small buffer: a thousand bodies may be arriving at once, each a few bytes at a time.
	size, err := io.CopyBuffer(io.MultiWriter(f, mac), body, make([]byte, 8<<10))
	if err == nil {
		body.received()
		err = checkSignature(want, mac)
		if err != nil {
			_ = f.Close()
			return nil, 0, &refusal{http.StatusUnauthorized, "invalid signature", err}
		}
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = f.Close()
		return nil, 0, s.copyRefusal(body.err, err)
	}
	return f, size, nil
}

// copyRefusal names why a body could not be received: the sender's fault (too large,
// too slow, cut short) or ours (the disk).
func (s *Server) copyRefusal(readErr, err error) *refusal {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(readErr, &tooBig):
		s.stats.rejectedTooLarge.Add(1)
		return &refusal{status: http.StatusRequestEntityTooLarge, msg: "body too large"}
	case errors.Is(readErr, os.ErrDeadlineExceeded):
		s.stats.rejectedSlow.Add(1)
		return &refusal{status: http.StatusRequestTimeout, msg: "body too slow"}
	case readErr != nil:
		return &refusal{status: http.StatusBadRequest, msg: "cannot read body"}
	}
	return &refusal{http.StatusServiceUnavailable, "cannot receive body", fmt.Errorf("spool delivery body: %w", err)}
}

// pacedBody reads a request body under a deadline set on the connection before every
// read: BodyTimeout after the start, or sooner, the moment the bytes received so far fall
// below MinBodyRate counted after BodyGrace. A sender that stalls or trickles is cut off
// then, and gives its room in the budget back.
type pacedBody struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	cfg   *Config
	n     int64
	err   error // the last read error, to tell the sender's failures from the disk's
}

func (s *Server) pace(w http.ResponseWriter, r *http.Request) *pacedBody {
	return &pacedBody{r: http.MaxBytesReader(w, r.Body, s.cfg.MaxBody), rc: http.NewResponseController(w), start: time.Now(), cfg: &s.cfg}
}

func (b *pacedBody) Read(p []byte) (int, error) {
	deadline := b.start.Add(b.cfg.BodyTimeout)
	owed := time.Duration(float64(b.n) / float64(b.cfg.MinBodyRate) * float64(time.Second))
	if floor := b.start.Add(b.cfg.BodyGrace + owed); floor.Before(deadline) {
		deadline = floor
	}
	// A writer without deadlines (a test's recorder) is not a network connection.
	_ = b.rc.SetReadDeadline(deadline)
	n, err := b.r.Read(p)
	b.n += int64(n)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// received relaxes the deadline once the whole body is in, to BodyTimeout from the start
// as the http.Server's ReadTimeout would: the rate floor firing while the delivery is
// being stored would cancel the request's context.
func (b *pacedBody) received() { _ = b.rc.SetReadDeadline(b.start.Add(b.cfg.BodyTimeout)) }
