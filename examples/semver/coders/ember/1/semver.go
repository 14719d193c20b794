// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import (
	"cmp"
	"strconv"
	"strings"
)

// Version holds the components of a SemVer 2.0.0 version string.
type Version struct {
	Major, Minor, Patch uint64
	Prerelease          []string
	Build               string
}

// Parse splits a valid SemVer 2.0.0 string into its components.
func Parse(s string) Version {
	var v Version
	s, v.Build, _ = strings.Cut(s, "+")
	s, pre, hasPre := strings.Cut(s, "-")
	if hasPre {
		v.Prerelease = strings.Split(pre, ".")
	}
	nums := strings.Split(s, ".")
	v.Major, _ = strconv.ParseUint(nums[0], 10, 64)
	v.Minor, _ = strconv.ParseUint(nums[1], 10, 64)
	v.Patch, _ = strconv.ParseUint(nums[2], 10, 64)
	return v
}

// Compare compares two valid SemVer 2.0.0 version strings (without a leading "v")
// by precedence. It returns -1 if a < b, 0 if a and b have the same precedence,
// and +1 if a > b.
func Compare(a, b string) int {
	return Parse(a).Compare(Parse(b))
}

// Compare orders v relative to w.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Major, w.Major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Minor, w.Minor); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Patch, w.Patch); c != 0 {
		return c
	}
	if c := comparePrerelease(v.Prerelease, w.Prerelease); c != 0 {
		return c
	}
	// Fall back to build metadata so that distinct builds get a stable order.
	return strings.Compare(v.Build, w.Build)
}

func comparePrerelease(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		// No pre-release ranks higher than any pre-release.
		return cmp.Compare(len(b), len(a))
	}
	for i := range min(len(a), len(b)) {
		if c := compareIdentifier(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareIdentifier(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
