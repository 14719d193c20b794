// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

// Compare compares two valid SemVer 2.0.0 version strings (without a leading "v")
// by precedence. It returns -1 if a < b, 0 if a and b have the same precedence,
// and +1 if a > b. Build metadata is ignored.
func Compare(a, b string) int {
	a, b = core(a), core(b)
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
		// skip the '.' separator
		i++
		j++
	}
	return 0
}

// core returns the MAJOR.MINOR.PATCH part of v.
func core(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '-' || v[i] == '+' {
			return v[:i]
		}
	}
	return v
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
