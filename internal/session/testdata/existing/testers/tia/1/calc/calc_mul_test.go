package calc

import "testing"

func TestMul(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{{3, 4, 12}, {-2, 5, -10}, {0, 9, 0}} {
		if got := Mul(c.a, c.b); got != c.want {
			t.Errorf("Mul(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
