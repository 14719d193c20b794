package semver

import "testing"

func TestComparePatch(t *testing.T) {
	if got := Compare("1.0.0", "1.0.1"); got != -1 {
		t.Errorf("Compare(1.0.0, 1.0.1) = %d, want -1", got)
	}
	if got := Compare("1.0.1", "1.0.0"); got != 1 {
		t.Errorf("Compare(1.0.1, 1.0.0) = %d, want 1", got)
	}
}
