package semver

import "testing"

func TestCompareAlphaBeforeBeta(t *testing.T) {
	if got := Compare("1.0.0-alpha", "1.0.0-beta"); got != -1 {
		t.Errorf("Compare(1.0.0-alpha, 1.0.0-beta) = %d, want -1", got)
	}
}
