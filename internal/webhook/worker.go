package webhook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/dixit-bot/dixit/internal/logkey"
	"github.com/dixit-bot/dixit/internal/words"
)

// errInterrupted means a delivery was left pending because the server stopped.
var errInterrupted = errors.New("interrupted by shutdown")

// Start starts the workers, and a feeder that queues every pending delivery on
// disk: those accepted before a crash, and those that found the queue full.
// Handlers run with a context derived from ctx.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closing {
		return errors.New("webhook server already started or shut down")
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	s.workers.Add(s.cfg.Workers + 1)
	go s.feed(ctx)
	for range s.cfg.Workers {
		go s.work(ctx)
	}
	return nil
}

// Shutdown stops accepting deliveries (503), lets the requests in progress
// finish, then lets the workers finish the deliveries already queued in memory.
// It returns when they are done, or cancels the handlers and returns ctx's error
// when ctx expires first. Whatever was not processed stays on disk for the next
// Start.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	cancel := s.cancel
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.requests.Wait()
		s.stopOnce.Do(func() { close(s.stop) })
		s.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
		if cancel != nil {
			cancel()
		}
		return nil
	case <-ctx.Done():
		if cancel != nil {
			cancel()
		}
		return fmt.Errorf("webhook shutdown: %w", ctx.Err())
	}
}

// feed queues the pending deliveries on disk, now and whenever asked to.
func (s *Server) feed(ctx context.Context) {
	defer s.workers.Done()
	for {
		ids, err := s.store.listPending()
		if err != nil {
			s.log.Error("webhook queue scan failed", "error", err)
		}
		for _, id := range ids {
			if !s.claim(id) {
				continue
			}
			select {
			case s.queue <- id:
			case <-s.stop:
				s.release(id)
				return
			case <-ctx.Done():
				s.release(id)
				return
			}
		}
		select {
		case <-s.rescan:
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// work processes queued deliveries until Shutdown, then drains the queue.
func (s *Server) work(ctx context.Context) {
	defer s.workers.Done()
	for {
		select {
		case id := <-s.queue:
			s.process(ctx, id)
		case <-ctx.Done():
			return
		case <-s.stop:
			for {
				select {
				case id := <-s.queue:
					s.process(ctx, id)
				default:
					return
				}
			}
		}
	}
}

// process runs one pending delivery's handlers and files it under done/ or
// failed/. A delivery interrupted by shutdown stays pending.
func (s *Server) process(ctx context.Context, id string) {
	defer s.release(id)
	if ctx.Err() != nil {
		return
	}
	rec, err := s.store.get(id)
	if errors.Is(err, os.ErrNotExist) {
		return // already finished: the feeder listed it just before
	}
	if err != nil {
		s.log.Error("webhook delivery unreadable", "error", err, logkey.DeliveryID, id)
		return
	}
	log := s.log.With(deliveryAttrs(rec.ID, rec.Event, rec.Payload)...)
	ctx = WithLogger(ctx, log)

	err = s.runHandlers(ctx, rec)
	if errors.Is(err, errInterrupted) || (err != nil && ctx.Err() != nil) {
		log.Info("webhook delivery left pending by shutdown", "error", err)
		return
	}
	sub := doneDir
	switch {
	case err == nil:
		s.stats.processed.Add(1)
		log.Info("webhook delivery processed")
	case IsRetryable(err):
		sub = failedDir
		s.stats.failed.Add(1)
		log.Error("webhook delivery failed after retries", "error", err)
	default:
		s.stats.failed.Add(1)
		log.Error("webhook delivery failed", "error", err)
	}
	if err := s.store.finish(rec, sub, err); err != nil {
		log.Error("webhook delivery not filed", "error", err)
	}
}

// runHandlers runs every handler claiming the event, retrying Retryable errors.
func (s *Server) runHandlers(ctx context.Context, rec record) error {
	var errs []error
	for _, h := range s.routes[rec.Event] {
		err := s.runWithRetries(ctx, h, rec)
		if errors.Is(err, errInterrupted) {
			return err
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (s *Server) runWithRetries(ctx context.Context, h Handler, rec record) error {
	delay := s.cfg.RetryBackoff
	for attempt := 1; ; attempt++ {
		err := s.call(ctx, h, rec)
		if err == nil || !IsRetryable(err) {
			return err
		}
		if attempt > s.cfg.Retries {
			return fmt.Errorf("%s: %w", words.Count(attempt, "attempt", "attempts"), err)
		}
		Logger(ctx).Warn("webhook handler will retry", "error", err, "attempt", attempt, "delay", delay)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %w", errInterrupted, ctx.Err())
		case <-s.stop:
			t.Stop()
			return errInterrupted
		}
		delay = min(2*delay, s.cfg.MaxRetryBackoff)
	}
}

// call runs one handler, turning a panic into an error that carries the stack.
func (s *Server) call(ctx context.Context, h Handler, rec record) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.stats.panics.Add(1)
			err = fmt.Errorf("handler %T panicked on %s delivery %s: %v\n%s", h, rec.Event, rec.ID, r, debug.Stack())
		}
	}()
	if err := h.Handle(ctx, rec.Event, rec.ID, rec.Payload); err != nil {
		return fmt.Errorf("handler %T on %s delivery %s: %w", h, rec.Event, rec.ID, err)
	}
	return nil
}
