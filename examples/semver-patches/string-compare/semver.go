// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import "strings"

// Compare returns -1, 0 or +1 as a has lower, the same or higher precedence than b.
// Build metadata is ignored.
func Compare(a, b string) int {
	coreA, preA, _ := strings.Cut(dropBuild(a), "-")
	coreB, preB, _ := strings.Cut(dropBuild(b), "-")
	if c := strings.Compare(coreA, coreB); c != 0 {
		return c
	}
	switch {
	case preA == preB:
		return 0
	case preA == "":
		return 1
	case preB == "":
		return -1
	}
	return strings.Compare(preA, preB)
}

func dropBuild(v string) string {
	v, _, _ = strings.Cut(v, "+")
	return v
}
