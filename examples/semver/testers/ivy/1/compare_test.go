package semver

import "testing"

func TestCompareEqualAndMajor(t *testing.T) {
	if got := Compare("1.2.3", "1.2.3"); got != 0 {
		t.Errorf("Compare(1.2.3, 1.2.3) = %d, want 0", got)
	}
	if got := Compare("2.0.0", "1.0.0"); got != 1 {
		t.Errorf("Compare(2.0.0, 1.0.0) = %d, want 1", got)
	}
}
