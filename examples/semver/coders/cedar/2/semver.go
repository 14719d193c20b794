// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

// Compare compares two valid SemVer 2.0.0 version strings (without a leading "v")
// by precedence. It returns -1 if a < b, 0 if a and b have the same precedence,
// and +1 if a > b. Build metadata is ignored.
func Compare(a, b string) int {
	a, b = stripBuild(a), stripBuild(b)
	i, j := 0, 0
	for field := 0; field < 3; field++ {
		var x, y int
		x, i = readNumber(a, i)
		y, j = readNumber(b, j)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
		// skip the '.' or '-' after the number
		i++
		j++
	}

	// i and j now point just past the '-' of the pre-release, or past the end.
	preA, preB := i <= len(a), j <= len(b)
	switch {
	case !preA && !preB:
		return 0
	case !preA:
		return 1
	case !preB:
		return -1
	}
	return comparePrerelease(a[i:], b[j:])
}

func stripBuild(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '+' {
			return v[:i]
		}
	}
	return v
}

// comparePrerelease walks both dot-separated identifier lists in step.
func comparePrerelease(a, b string) int {
	for {
		idA, restA, moreA := nextIdent(a)
		idB, restB, moreB := nextIdent(b)
		if c := compareIdent(idA, idB); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1
		case !moreB:
			return 1
		}
		a, b = restA, restB
	}
}

// nextIdent splits off the first identifier of s and reports whether
// another identifier follows it.
func nextIdent(s string) (ident, rest string, more bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func compareIdent(a, b string) int {
	numA, numB := allDigits(a), allDigits(b)
	switch {
	case numA && numB:
		// no leading zeros: a longer number is a bigger number
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
	case numA:
		return -1
	case numB:
		return 1
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// readNumber reads a run of decimal digits starting at s[i] and returns its
// value and the index just past it.
func readNumber(s string, i int) (int, int) {
	n := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		n = n*10 + int(s[i]-'0')
		i++
	}
	return n, i
}
