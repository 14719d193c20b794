package semver

import "testing"

func TestCompareZeroMajor(t *testing.T) {
	if got := Compare("0.9.0", "1.0.0"); got != -1 {
		t.Errorf("Compare(0.9.0, 1.0.0) = %d, want -1", got)
	}
}
