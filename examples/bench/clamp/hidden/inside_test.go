package clamp

import "testing"

func TestHiddenInside(t *testing.T) {
	for _, c := range []struct{ x, lo, hi, want int }{{5, 0, 10, 5}, {0, 0, 10, 0}, {10, 0, 10, 10}} {
		if got := Clamp(c.x, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c.x, c.lo, c.hi, got, c.want)
		}
	}
}
