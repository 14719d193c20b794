package semver

import "testing"

func TestCompareReleaseCandidates(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0.0-rc.1", "1.0.0", -1},
		{"2.0.0-rc.1", "1.9.9", 1},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
