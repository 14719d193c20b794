package session

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrRunBusy means another process is driving the same run.
var ErrRunBusy = errors.New("another process is driving this run")

// acquireLease takes an exclusive flock on <runDir>.lease for as long as the process lives.
// The kernel drops it when the process dies, even by SIGKILL, so a restarted run never
// waits for a dead owner, and two live processes never drive one run.
//
// A lease its owner has released (it empties the file first) may still be held for a
// moment by a copy of its descriptor in a child the process forked and has not yet
// exec'd (a sandbox starting for another run): that is waited for, briefly.
func acquireLease(runDir string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(runDir), 0o755); err != nil {
		return nil, fmt.Errorf("runs directory: %w", err)
	}
	path := runDir + ".lease"
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		f, owner, err := tryLease(path)
		if err == nil {
			return func() {
				f.Truncate(0)
				f.Close()
			}, nil
		}
		if !errors.Is(err, ErrRunBusy) || owner != "" || wait > 2*time.Second {
			return nil, err
		}
		time.Sleep(wait)
	}
}

// tryLease takes the lease at path without waiting; when another holds it, it returns
// ErrRunBusy and what the holder wrote ("" once released).
func tryLease(path string) (*os.File, string, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("lease %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		data, _ := os.ReadFile(path)
		f.Close()
		owner := strings.TrimSpace(string(data))
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, owner, fmt.Errorf("%w (%s)", ErrRunBusy, cmp.Or(owner, "released by its owner, still held by a process it started"))
		}
		return nil, "", fmt.Errorf("lease %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d\n", os.Getpid())
	}
	return f, "", nil
}
