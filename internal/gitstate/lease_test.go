package gitstate

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
)

// clock is a settable time for lease tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func leaseOpts(srv *gittest.Server, url, holder string, clk *clock) LeaseOptions {
	return LeaseOptions{URL: url, Ref: "refs/dixit-lease/run-1", Holder: holder, TTL: time.Minute, Now: clk.Now,
		Token: func(context.Context) (string, error) { return srv.Token, nil }}
}

// TestOnlyOneServerTakesARun: servers racing for the same run's lease on a real git
// server: exactly one wins, every other is told the run is driven elsewhere.
func TestOnlyOneServerTakesARun(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.EmptyRepo("hello-dixit")
	clk := &clock{now: time.Now()}
	for round := 0; round < 3; round++ {
		ref := fmt.Sprintf("refs/dixit-lease/run-%d", round)
		var won atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, 6)
		for i := 0; i < 6; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := leaseOpts(srv, url, fmt.Sprintf("server-%d", i), clk)
				o.Ref = ref
				if _, err := AcquireLease(context.Background(), o); err == nil {
					won.Add(1)
				} else {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		assert.Equal(t, int32(1), won.Load(), "exactly one server drives the run")
		for err := range errs {
			assert.ErrorIs(t, err, ErrLeaseHeld)
		}
	}
}

func TestLeaseExpiresRenewsAndIsLost(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.EmptyRepo("hello-dixit")
	clk := &clock{now: time.Now()}
	ctx := context.Background()

	a, err := AcquireLease(ctx, leaseOpts(srv, url, "server-a", clk))
	require.NoError(t, err)
	_, err = AcquireLease(ctx, leaseOpts(srv, url, "server-b", clk))
	require.ErrorIs(t, err, ErrLeaseHeld)
	assert.ErrorContains(t, err, "server-a", "the refusal names the holder")

	// A restarted server-a (same holder) takes its own lease again at once.
	a2, err := AcquireLease(ctx, leaseOpts(srv, url, "server-a", clk))
	require.NoError(t, err)

	clk.add(50 * time.Second)
	require.NoError(t, a2.Renew(ctx), "the holder renews before expiry")
	clk.add(50 * time.Second)
	_, err = AcquireLease(ctx, leaseOpts(srv, url, "server-b", clk))
	require.ErrorIs(t, err, ErrLeaseHeld, "renewed: still held 100s after the first take")

	// server-a stops renewing: after the TTL server-b takes over, and server-a's next
	// renewal (from the stale copy it had) finds the lease gone.
	clk.add(61 * time.Second)
	b, err := AcquireLease(ctx, leaseOpts(srv, url, "server-b", clk))
	require.NoError(t, err)
	assert.ErrorIs(t, a2.Renew(ctx), ErrLeaseLost)
	assert.ErrorIs(t, a.Renew(ctx), ErrLeaseLost)

	// Release hands the run over without waiting for the TTL.
	require.NoError(t, b.Release(ctx))
	_, err = AcquireLease(ctx, leaseOpts(srv, url, "server-c", clk))
	assert.NoError(t, err)
}

func TestKeepCallsLostWhenTheLeaseMoves(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.EmptyRepo("hello-dixit")
	clk := &clock{now: time.Now()}
	ctx := context.Background()
	o := leaseOpts(srv, url, "server-a", clk)
	o.TTL = 3 * time.Second // a renewal push may take TTL/3: ample even on a loaded machine
	a, err := AcquireLease(ctx, o)
	require.NoError(t, err)

	// Another server forces its way in (as after a long network partition).
	ob := leaseOpts(srv, url, "server-b", clk)
	ob.TTL = o.TTL
	clk.add(4 * time.Second)
	_, err = AcquireLease(ctx, ob)
	require.NoError(t, err)

	lost := make(chan error, 1)
	keepCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	a.Keep(keepCtx, func(err error) { lost <- err })
	select {
	case err := <-lost:
		assert.ErrorIs(t, err, ErrLeaseLost)
	default:
		t.Fatal("Keep returned without reporting the lost lease")
	}
}

func TestLeaseOnAnUnreachableRemoteIsAnError(t *testing.T) {
	clk := &clock{now: time.Now()}
	_, err := AcquireLease(context.Background(), LeaseOptions{URL: "http://127.0.0.1:1/x.git", Ref: "refs/dixit-lease/r", Holder: "a", Now: clk.Now})
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrLeaseHeld, "unreachable is not busy")
	_, err = AcquireLease(context.Background(), LeaseOptions{URL: "http://127.0.0.1:1/x.git", Ref: "bad ref", Holder: "a"})
	assert.ErrorContains(t, err, "valid ref")
}
