// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import (
	"regexp"
	"strconv"
	"strings"
)

var semverRe = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$`)

// Compare compares two valid SemVer 2.0.0 version strings (without a leading "v")
// by precedence. It returns -1 if a < b, 0 if a and b have the same precedence,
// and +1 if a > b. Build metadata is ignored.
func Compare(a, b string) int {
	ma := semverRe.FindStringSubmatch(a)
	mb := semverRe.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return strings.Compare(a, b)
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.ParseUint(ma[i], 10, 64)
		y, _ := strconv.ParseUint(mb[i], 10, 64)
		if x < y {
			return -1
		}
		if x > y {
			return 1
		}
	}

	preA, preB := ma[4], mb[4]
	if preA == preB {
		return 0
	}
	// The pre-release tag comes after the version number.
	if preA == "" {
		return -1
	}
	if preB == "" {
		return 1
	}
	return strings.Compare(preA, preB)
}
