package calc

import (
	"os/exec"
	"testing"
	"time"
)

// Leaves a background process behind and sleeps past any sensible timeout.
func TestAddSlowly(t *testing.T) {
	_ = exec.Command("sh", "-c", "sleep 600 &").Run()
	time.Sleep(10 * time.Minute)
}
