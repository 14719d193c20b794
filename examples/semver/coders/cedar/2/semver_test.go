package semver

import (
	"sort"
	"testing"
)

func TestSortOrder(t *testing.T) {
	want := []string{
		"0.9.9",
		"1.0.0-alpha",
		"1.0.0-alpha.1",
		"1.0.0-alpha.beta",
		"1.0.0-beta",
		"1.0.0-beta.2",
		"1.0.0-beta.11",
		"1.0.0-rc.1",
		"1.0.0",
		"1.2.0",
		"1.10.0",
		"2.0.0",
	}
	got := []string{
		"1.0.0-beta.11", "2.0.0", "1.0.0-alpha", "1.10.0", "1.0.0",
		"1.0.0-rc.1", "0.9.9", "1.0.0-alpha.beta", "1.2.0",
		"1.0.0-beta", "1.0.0-alpha.1", "1.0.0-beta.2",
	}
	sort.Slice(got, func(i, j int) bool { return Compare(got[i], got[j]) < 0 })
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sorted = %v, want %v", got, want)
		}
	}
}

func TestBuildIgnored(t *testing.T) {
	if c := Compare("1.0.0+20130313144700", "1.0.0+exp.sha.5114f85"); c != 0 {
		t.Errorf("got %d, want 0", c)
	}
	if c := Compare("1.0.0-rc.1+build.5", "1.0.0-rc.1"); c != 0 {
		t.Errorf("got %d, want 0", c)
	}
}
