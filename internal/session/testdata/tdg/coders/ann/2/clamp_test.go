package clamp

import "testing"

func TestClampBelow(t *testing.T) {
	if got := Clamp(-3, 0, 10); got != 0 {
		t.Errorf("Clamp(-3, 0, 10) = %d, want 0", got)
	}
}
