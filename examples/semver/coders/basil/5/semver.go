// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import "strings"

// Compare compares two valid SemVer 2.0.0 version strings (without a leading "v")
// by precedence. It returns -1 if a < b, 0 if a and b have the same precedence,
// and +1 if a > b. Build metadata is ignored.
func Compare(a, b string) int {
	a, _, _ = strings.Cut(a, "+")
	b, _, _ = strings.Cut(b, "+")

	coreA, preA, _ := strings.Cut(a, "-")
	coreB, preB, _ := strings.Cut(b, "-")

	partsA := strings.Split(coreA, ".")
	partsB := strings.Split(coreB, ".")
	for i := 0; i < 3; i++ {
		if c := compareNumeric(partsA[i], partsB[i]); c != 0 {
			return c
		}
	}

	// A release ranks above any of its pre-releases.
	switch {
	case preA == "" && preB == "":
		return 0
	case preA == "":
		return 1
	case preB == "":
		return -1
	}

	idsA := strings.Split(preA, ".")
	idsB := strings.Split(preB, ".")
	for i := 0; i < len(idsA) && i < len(idsB); i++ {
		if c := compareIdentifier(idsA[i], idsB[i]); c != 0 {
			return c
		}
	}
	return sign(len(idsA) - len(idsB))
}

// compareNumeric compares two strings of decimal digits without leading zeros,
// so it also works for numbers that do not fit in an int.
func compareNumeric(x, y string) int {
	if len(x) != len(y) {
		return sign(len(x) - len(y))
	}
	return strings.Compare(x, y)
}

func compareIdentifier(x, y string) int {
	xNum, yNum := isNumeric(x), isNumeric(y)
	switch {
	case xNum && yNum:
		return compareNumeric(x, y)
	case xNum:
		return -1
	case yNum:
		return 1
	}
	return strings.Compare(x, y)
}

func isNumeric(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
