package calc

import (
	"syscall"
	"testing"
)

// A test that ends its own process with exit status 0 once its check passes: every
// coder's run of it looks tampered, so the test is to blame.
func TestAddExits(t *testing.T) {
	if Add(2, 3) == 5 {
		syscall.Exit(0)
	}
	t.Fatal("Add(2, 3) != 5")
}
