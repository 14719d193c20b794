package llmtest

import (
	"fmt"
	"sync"
	"testing"
)

// ProgramTB lets NewServer run outside a test (the benchmarks under bench/). It implements
// only what the server calls (Helper, Cleanup, Errorf); the embedded nil TB would panic on
// anything else.
type ProgramTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (b *ProgramTB) Helper() {}

func (b *ProgramTB) Cleanup(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cleanups = append(b.cleanups, f)
}

func (b *ProgramTB) Errorf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs = append(b.errs, fmt.Sprintf(format, args...))
}

// Close runs the cleanups registered so far, last first, and returns the errors the server
// reported.
func (b *ProgramTB) Close() []string {
	b.mu.Lock()
	fs := b.cleanups
	b.cleanups = nil
	b.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}
