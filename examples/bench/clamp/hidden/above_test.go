package clamp

import "testing"

func TestHiddenAbove(t *testing.T) {
	for _, c := range []struct{ x, lo, hi, want int }{{42, 0, 10, 10}, {11, 0, 10, 10}, {7, 3, 3, 3}} {
		if got := Clamp(c.x, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.x, c.lo, c.hi, got, c.want)
		}
	}
}
