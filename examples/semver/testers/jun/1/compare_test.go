package semver

import "testing"

func TestParsedFields(t *testing.T) {
	v := MustParse("1.2.3")
	if v.Major != 1 || v.Minor != 2 || v.Patch != 3 {
		t.Fatalf("MustParse(1.2.3) = %d.%d.%d", v.Major, v.Minor, v.Patch)
	}
	if got := Compare("1.2.3", "1.2.3"); got != 0 {
		t.Errorf("Compare(1.2.3, 1.2.3) = %d, want 0", got)
	}
}
