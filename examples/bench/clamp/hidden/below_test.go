package clamp

import "testing"

func TestHiddenBelow(t *testing.T) {
	for _, c := range []struct{ x, lo, hi, want int }{{-3, 0, 10, 0}, {-1 << 40, -5, 5, -5}} {
		if got := Clamp(c.x, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.x, c.lo, c.hi, got, c.want)
		}
	}
}
