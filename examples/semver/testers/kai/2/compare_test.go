package semver

import "testing"

func TestCompareBuildNumbers(t *testing.T) {
	if got := Compare("1.0.0+build.2", "1.0.0+build.1"); got != 1 {
		t.Errorf("Compare(1.0.0+build.2, 1.0.0+build.1) = %d, want 1", got)
	}
}
