package calc

import "testing"

func TestAddEventually(t *testing.T) {
	for Add(1, 1) == 2 {
	}
}
