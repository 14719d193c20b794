package semver

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

func TestCompareFromGoroutine(t *testing.T) {
	var result atomic.Int64
	result.Store(99)
	go func() {
		time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond)
		result.Store(int64(Compare("1.2.3", "1.2.4")))
	}()
	time.Sleep(4 * time.Millisecond)
	if got := result.Load(); got != -1 {
		t.Errorf("Compare(1.2.3, 1.2.4) = %d, want -1", got)
	}
}
