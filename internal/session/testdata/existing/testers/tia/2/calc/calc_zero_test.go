package calc

import "testing"

func TestAddZero(t *testing.T) {
	if got := Add(0, 7); got != 7 {
		t.Fatalf("Add(0, 7) = %d, want 7", got)
	}
}
