package calc

import (
	"os"
	"strconv"
	"testing"
)

// TestFlaky fails every second run: it counts its runs in a file next to it.
func TestFlaky(t *testing.T) {
	data, _ := os.ReadFile("flaky.count")
	n, _ := strconv.Atoi(string(data))
	n++
	if err := os.WriteFile("flaky.count", []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n%2 == 0 {
		t.Fatalf("run %d: fails every second run", n)
	}
}
