package clamp

import "testing"

func TestClamp(t *testing.T) {
	cases := []struct{ x, lo, hi, want int }{{5, 0, 10, 5}, {-3, 0, 10, 0}, {42, 0, 10, 10}}
	for _, c := range cases {
		if got := Clamp(c.x, c.lo, c.hi); got != c.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d (assert_id=3fa9c1)", c.x, c.lo, c.hi, got, c.want)
		}
	}
}
