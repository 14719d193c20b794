package webhook

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// Server receives webhook deliveries (ServeHTTP) and processes them on a
// bounded pool of workers (Start, Shutdown).
type Server struct {
	cfg    Config
	log    *slog.Logger
	routes map[string][]Handler // event type → handlers claiming it
	store  *store
	stats  counters
	// unverified bounds the bodies being received before their signature is checked.
	unverified *budget

	queue  chan string   // ids of pending deliveries, for the workers
	rescan chan struct{} // asks the feeder to look at the disk again
	stop   chan struct{} // closed by Shutdown

	mu       sync.Mutex
	seen     map[string]bool          // every delivery id ever accepted (dedupe)
	storing  map[string]chan struct{} // ids being made durable right now; closed when done
	queued   map[string]bool          // ids in queue or on a worker
	closing  bool
	started  bool
	cancel   context.CancelFunc // cancels the workers' context
	requests sync.WaitGroup     // ServeHTTP calls past the closing check
	workers  sync.WaitGroup     // workers and the feeder
	stopOnce sync.Once
}

// New checks cfg, opens the durable queue in cfg.QueueDir and recovers the ids
// of every delivery it holds, so that dedupe survives a restart. Deliveries
// left pending by a crash run once Start is called.
func New(cfg Config, handlers ...Handler) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("webhook config: %w", err)
	}
	routes := map[string][]Handler{}
	for i, h := range handlers {
		if h == nil {
			return nil, fmt.Errorf("webhook handler %d is nil", i)
		}
		for _, event := range h.Handles() {
			routes[event] = append(routes[event], h)
		}
	}
	st, err := openStore(cfg.QueueDir)
	if err != nil {
		return nil, fmt.Errorf("open webhook queue: %w", err)
	}
	seen, pending, err := st.recover()
	if err != nil {
		return nil, fmt.Errorf("recover webhook queue %s: %w", cfg.QueueDir, err)
	}
	if len(pending) > 0 {
		cfg.Logger.Info("webhook deliveries pending from a previous run", "count", len(pending))
	}
	return &Server{
		cfg:        cfg,
		log:        cfg.Logger,
		routes:     routes,
		store:      st,
		unverified: &budget{maxBodies: cfg.MaxUnverified, maxBytes: cfg.MaxUnverifiedBytes},
		queue:      make(chan string, cfg.QueueSize),
		rescan:     make(chan struct{}, 1),
		stop:       make(chan struct{}),
		seen:       seen,
		storing:    map[string]chan struct{}{},
		queued:     map[string]bool{},
	}, nil
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats { return s.stats.snapshot() }

// enter admits a request unless the server is shutting down; the caller must
// call s.requests.Done when it returns true.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.requests.Add(1)
	return true
}

// Seen reports whether a delivery with this id was ever accepted (it survives restarts
// with the durable queue).
func (s *Server) Seen(deliveryID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[deliveryID]
}

// beginStoring claims id for this request to make durable. It reports stored when the
// delivery already is; otherwise, when another request is storing it right now, wait is
// closed once that one is done (and the caller asks again).
func (s *Server) beginStoring(id string) (claimed, stored bool, wait <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[id] {
		return false, true, nil
	}
	if ch, busy := s.storing[id]; busy {
		return false, false, ch
	}
	s.storing[id] = make(chan struct{})
	return true, false, nil
}

// endStoring releases the claim on id, recording it as accepted when it was stored.
func (s *Server) endStoring(id string, stored bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if stored {
		s.seen[id] = true
	}
	close(s.storing[id])
	delete(s.storing, id)
}

// claim marks id as queued; it reports false if it already was.
func (s *Server) claim(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued[id] {
		return false
	}
	s.queued[id] = true
	return true
}

func (s *Server) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.queued, id)
}

// enqueue hands a pending delivery to the workers without blocking. When the
// queue is full the delivery stays on disk and the feeder is asked to rescan.
func (s *Server) enqueue(id string) {
	if !s.claim(id) {
		return
	}
	select {
	case s.queue <- id:
	default:
		s.release(id)
		select {
		case s.rescan <- struct{}{}:
		default: // a rescan is already due
		}
	}
}
