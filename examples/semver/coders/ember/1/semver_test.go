package semver

import "testing"

func TestParse(t *testing.T) {
	v := Parse("1.2.3-rc.1+build.7")
	if v.Major != 1 || v.Minor != 2 || v.Patch != 3 {
		t.Fatalf("core = %d.%d.%d, want 1.2.3", v.Major, v.Minor, v.Patch)
	}
	if len(v.Prerelease) != 2 || v.Prerelease[0] != "rc" || v.Prerelease[1] != "1" {
		t.Fatalf("prerelease = %q, want [rc 1]", v.Prerelease)
	}
	if v.Build != "build.7" {
		t.Fatalf("build = %q, want build.7", v.Build)
	}
}

func TestComparePrecedence(t *testing.T) {
	ordered := []string{
		"1.0.0-alpha",
		"1.0.0-alpha.1",
		"1.0.0-alpha.beta",
		"1.0.0-beta",
		"1.0.0-beta.2",
		"1.0.0-beta.11",
		"1.0.0-rc.1",
		"1.0.0",
		"1.1.0",
		"2.0.0",
	}
	for i := 1; i < len(ordered); i++ {
		if got := Compare(ordered[i-1], ordered[i]); got != -1 {
			t.Errorf("Compare(%q, %q) = %d, want -1", ordered[i-1], ordered[i], got)
		}
	}
}
