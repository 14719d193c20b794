package clamp

import "testing"

// A wrong expectation: hi is inside the range, so Clamp(10, 0, 10) is 10.
func TestClampTop(t *testing.T) {
	if got := Clamp(10, 0, 10); got != 9 {
		t.Errorf("Clamp(10, 0, 10) = %d, want 9", got)
	}
}
