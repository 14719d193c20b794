package clamp

import "testing"

func TestClampAbove(t *testing.T) {
	if got := Clamp(42, 0, 10); got != 10 {
		t.Errorf("Clamp(42, 0, 10) = %d, want 10", got)
	}
}
