package clamp

import "testing"

// Wrong: values above hi should be limited to hi.
func TestClampAbovePassesThrough(t *testing.T) {
	if got := Clamp(15, 0, 10); got != 15 {
		t.Errorf("Clamp(15, 0, 10) = %d, want 15", got)
	}
}
