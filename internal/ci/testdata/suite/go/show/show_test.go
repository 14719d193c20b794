package show

import "testing"

func TestSum(t *testing.T) {
	if got := Sum(1, 2); got != "1 + 2 = 3" {
		t.Fatalf("Sum(1, 2) = %q", got)
	}
}
