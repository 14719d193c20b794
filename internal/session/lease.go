package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrRunBusy means another process is driving the same run.
var ErrRunBusy = errors.New("another process is driving this run")

// acquireLease takes an exclusive flock on <runDir>.lease for as long as the process lives.
// The kernel drops it when the process dies, even by SIGKILL, so a restarted run never
// waits for a dead owner, and two live processes never drive one run.
func acquireLease(runDir string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(runDir), 0o755); err != nil {
		return nil, fmt.Errorf("runs directory: %w", err)
	}
	path := runDir + ".lease"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lease %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		owner, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrRunBusy, strings.TrimSpace(string(owner)))
		}
		return nil, fmt.Errorf("lease %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d\n", os.Getpid())
	}
	return func() { f.Close() }, nil
}
