package llm

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Limiter spaces the requests of every agent that talks to one endpoint once the
// endpoint says it is overloaded (429, 503). Without it each agent backs off alone and
// the others keep hammering the endpoint, each earning its own 429. After an overload
// no request starts before the wait the endpoint asked for, and starts are then spaced
// by a gap that doubles with every further overload and halves with every success.
//
// A client makes one for itself; give several clients of one endpoint (say, two models
// on one Ollama) the same Limiter through OpenAIConfig.Limiter. It is safe for
// concurrent use; the zero value is not, use NewLimiter.
type Limiter struct {
	now func() time.Time

	mu        sync.Mutex
	notBefore time.Time     // no request starts before this
	gap       time.Duration // spacing between starts while the endpoint is hot
	last      time.Time     // the last start handed out
}

// Bounds of the gap between request starts after an overload.
const (
	minGap = 250 * time.Millisecond
	maxGap = 10 * time.Second
)

// NewLimiter returns a limiter that lets everything through until an overload.
func NewLimiter() *Limiter { return &Limiter{now: time.Now} }

// wait blocks until the caller may start a request, or ctx ends. It refuses at once
// when ctx's deadline comes before the start it would get.
func (l *Limiter) wait(ctx context.Context, sleep func(context.Context, time.Duration) error) error {
	now, start := l.reserve()
	d := start.Sub(now)
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && dl.Before(start) {
		return fmt.Errorf("llm: the endpoint is overloaded; waiting %s for it would pass the deadline", d.Round(time.Millisecond))
	}
	return sleep(ctx, d)
}

// reserve hands out the next start.
func (l *Limiter) reserve() (now, start time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now = l.now()
	start = now
	if l.notBefore.After(start) {
		start = l.notBefore
	}
	if l.gap > 0 && l.last.Add(l.gap).After(start) {
		start = l.last.Add(l.gap)
	}
	l.last = start
	return now, start
}

// overloaded records that the endpoint asked to wait d: nobody starts before then.
func (l *Limiter) overloaded(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.now().Add(d); until.After(l.notBefore) {
		l.notBefore = until
	}
	l.gap = min(max(2*l.gap, minGap), maxGap)
	l.last = time.Time{} // the first to come back starts at notBefore, the others after it

}

// succeeded eases the spacing after a request went through.
func (l *Limiter) succeeded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gap /= 2; l.gap < minGap {
		l.gap = 0
	}
}
