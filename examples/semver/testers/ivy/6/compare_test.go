package semver

import "testing"

func TestCompareMinorOverPatch(t *testing.T) {
	if got := Compare("1.1.0", "1.0.9"); got != 1 {
		t.Errorf("Compare(1.1.0, 1.0.9) = %d, want 1", got)
	}
}
