package calc

import (
	"os/exec"
	"testing"
)

func TestAddEverywhere(t *testing.T) {
	for i := 0; ; i++ {
		cmd := exec.Command("sh", "-c", "sleep 60")
		if err := cmd.Start(); err != nil {
			t.Fatalf("started %d processes, then: %v", i, err)
		}
	}
}
