// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import (
	"regexp"
	"strconv"
	"strings"
)

var semverRe = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$`)

var numericRe = regexp.MustCompile(`^\d+$`)

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
		if c := compareNumbers(ma[i], mb[i]); c != 0 {
			return c
		}
	}

	preA, preB := ma[4], mb[4]
	if preA == preB {
		return 0
	}
	// A pre-release has lower precedence than the associated normal version.
	if preA == "" {
		return 1
	}
	if preB == "" {
		return -1
	}

	idsA := strings.Split(preA, ".")
	idsB := strings.Split(preB, ".")
	for i := 0; i < len(idsA) && i < len(idsB); i++ {
		numA := numericRe.MatchString(idsA[i])
		numB := numericRe.MatchString(idsB[i])
		var c int
		switch {
		case numA && numB:
			c = compareNumbers(idsA[i], idsB[i])
		case numA:
			c = -1
		case numB:
			c = 1
		default:
			c = strings.Compare(idsA[i], idsB[i])
		}
		if c != 0 {
			return c
		}
	}
	return compareInts(len(idsA), len(idsB))
}

func compareNumbers(x, y string) int {
	nx, _ := strconv.ParseUint(x, 10, 64)
	ny, _ := strconv.ParseUint(y, 10, 64)
	switch {
	case nx < ny:
		return -1
	case nx > ny:
		return 1
	}
	return 0
}

func compareInts(x, y int) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
