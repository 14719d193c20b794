package webhook

import "sync"

// budget bounds the bodies being received before their signature is checked: how many
// at once, and how many bytes they may declare between them. A request that does not fit
// is refused at once rather than queued: waiting would let a flood hold it, and the
// memory of the connection behind it, for as long as the flood lasts.
type budget struct {
	maxBodies int
	maxBytes  int64

	mu     sync.Mutex
	bodies int
	bytes  int64
}

// take reserves room for one body of n bytes, or reports false when it does not fit.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bodies >= b.maxBodies || b.bytes+n > b.maxBytes {
		return false
	}
	b.bodies++
	b.bytes += n
	return true
}

// give returns what take reserved.
func (b *budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bodies--
	b.bytes -= n
}

// inUse reports what is reserved now.
func (b *budget) inUse() (bodies int, bytes int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bodies, b.bytes
}
