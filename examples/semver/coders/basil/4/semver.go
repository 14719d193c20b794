// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import (
	"strconv"
	"strings"
)

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
		x, _ := strconv.Atoi(partsA[i])
		y, _ := strconv.Atoi(partsB[i])
		if x != y {
			return sign(x - y)
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
		if c := strings.Compare(idsA[i], idsB[i]); c != 0 {
			return c
		}
	}
	return sign(len(idsA) - len(idsB))
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
