package ghtest

import (
	"maps"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault is a scripted failure: the next Times requests matching Method and Path (both
// optional) get Status, Header and Body instead of the normal answer, or a dropped
// connection when Drop is set. Faulted responses are not checked against the
// description: GitHub documents rate limits for every operation in one place.
type Fault struct {
	Method string // "" matches any
	Path   string // relative to BasePath, e.g. "repos/o/r/issues/1/comments"; "" matches any
	Times  int    // 0 means 1
	Status int
	Header http.Header
	Body   string
	Drop   bool
	Delay  time.Duration // wait this long (or until the client gives up) before answering
	// Lost handles the request, then drops the connection: it took effect, but the
	// client never hears so.
	Lost bool
}

// Inject queues faults; they are consumed in order.
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range faults {
		f := faults[i]
		if f.Times == 0 {
			f.Times = 1
		}
		s.faults = append(s.faults, &f)
	}
}

func (s *Server) takeFault(r *http.Request) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, BasePath)
	for i, f := range s.faults {
		if (f.Method == "" || f.Method == r.Method) && (f.Path == "" || f.Path == path) {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}

func (f *Fault) serve(w http.ResponseWriter, r *http.Request) {
	if f.Delay > 0 {
		select {
		case <-r.Context().Done():
		case <-time.After(f.Delay):
		}
	}
	if f.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	for k, v := range f.Header {
		w.Header()[k] = v
	}
	if f.Body != "" && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
}

// PrimaryRateLimit is GitHub's answer once the hourly budget is spent: 403 with
// x-ratelimit-remaining: 0 and the reset time in epoch seconds.
func PrimaryRateLimit(reset time.Time) Fault {
	return Fault{
		Status: http.StatusForbidden,
		Header: http.Header{
			"X-Ratelimit-Limit":     {"5000"},
			"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Used":      {"5000"},
			"X-Ratelimit-Reset":     {strconv.FormatInt(reset.Unix(), 10)},
			"X-Ratelimit-Resource":  {"core"},
		},
		Body: `{"message":"API rate limit exceeded for installation ID 1.",` +
			`"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`,
	}
}

// SecondaryRateLimit is GitHub's 403 for a secondary rate limit; retryAfter 0 omits the
// Retry-After header (the client must then back off on its own).
func SecondaryRateLimit(retryAfter time.Duration) Fault {
	f := Fault{
		Status: http.StatusForbidden,
		Header: http.Header{},
		Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",` +
			`"documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`,
	}
	if retryAfter > 0 {
		f.Header.Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	}
	return f
}

// TooManyRequests is a 429 with Retry-After in seconds.
func TooManyRequests(retryAfter time.Duration) Fault {
	f := SecondaryRateLimit(retryAfter)
	f.Status = http.StatusTooManyRequests
	return f
}

// Chaos makes a share of all requests fail the ways GitHub and networks fail, drawn from
// a seeded generator so a failing run can be replayed. Kinds take turns (ChaosKinds,
// starting at one the seed picks): an answer lost after the request was handled (it took effect, but
// the client never hears so), a connection dropped before it was handled, a hold (no
// answer for Hold, then a 504: the client should have given up first), 502, a 429 and a
// secondary-rate-limit 403 (both with Retry-After: 1), 500 and 503.
type Chaos struct {
	Rate float64
	Seed uint64
	Hold time.Duration // default 2 s
}

// ChaosKinds are the failures Chaos injects, in turn.
var ChaosKinds = []string{"lost-answer", "drop", "hold", "502", "429", "secondary-403", "500", "503"}

// SetChaos starts (or, with Rate 0, stops) random failures.
func (s *Server) SetChaos(c Chaos) {
	if c.Hold == 0 {
		c.Hold = 2 * time.Second
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chaos = c
	s.chaosRNG = rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	s.chaosCounts = map[string]int{}
	s.chaosTurn = int(c.Seed % uint64(len(ChaosKinds))) // each seed starts the turns elsewhere
}

// ChaosCounts reports how many failures of each kind were injected.
func (s *Server) ChaosCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.chaosCounts)
}

// takeChaos draws whether this request fails, and how.
func (s *Server) takeChaos() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chaos.Rate <= 0 || s.chaosRNG.Float64() >= s.chaos.Rate {
		return ""
	}
	kind := ChaosKinds[s.chaosTurn%len(ChaosKinds)]
	s.chaosTurn++
	s.chaosCounts[kind]++
	return kind
}

// serveChaos answers with a failure of the given kind; handled reports whether the
// request must still be handled (only for lost-answer, which drops the answer after).
func (s *Server) serveChaos(kind string, w http.ResponseWriter, r *http.Request) (handled bool) {
	var f Fault
	switch kind {
	case "500", "502", "503":
		code, _ := strconv.Atoi(kind)
		f = Fault{Status: code, Body: `{"message":"Server Error"}`}
	case "429":
		f = TooManyRequests(time.Second)
	case "secondary-403":
		f = SecondaryRateLimit(time.Second)
	case "hold":
		f = Fault{Status: http.StatusGatewayTimeout, Delay: s.chaos.Hold, Body: `{"message":"We couldn't respond to your request in time."}`}
	case "drop":
		f = Fault{Drop: true}
	case "lost-answer":
		return false
	}
	f.serve(w, r)
	return true
}
