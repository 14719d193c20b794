package sandbox

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// TryLock takes an exclusive flock on path (made when missing) without waiting. The
// returned file holds it, and closing the file releases it; nil and no error mean that
// another holder has it. The judge's locks (lane uids, verdict cache keys, agents'
// directories) all live in files the judge owns.
func TryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return f, nil
	}
	f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil
	}
	return nil, err
}

// WaitLock takes the lock TryLock does, trying again every poll, so that ctx can end
// the wait (flock itself cannot be interrupted).
func WaitLock(ctx context.Context, path string, poll time.Duration) (*os.File, error) {
	for {
		f, err := TryLock(path)
		if f != nil || err != nil {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}
