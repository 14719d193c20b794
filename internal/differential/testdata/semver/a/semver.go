// Package semver compares versions MAJOR.MINOR.PATCH[+build].
package semver

import (
	"strconv"
	"strings"
)

// Compare returns -1, 0 or 1 as a is older than, the same as, or newer than b. Build
// metadata (after "+") does not count, as semver says.
func Compare(a, b string) int {
	pa, pb := parts(a), parts(b)
	for i := range pa {
		switch {
		case pa[i] < pb[i]:
			return -1
		case pa[i] > pb[i]:
			return 1
		}
	}
	return 0
}

func parts(v string) [3]int {
	v, _, _ = strings.Cut(v, "+")
	var out [3]int
	for i, f := range strings.SplitN(v, ".", 3) {
		out[i], _ = strconv.Atoi(f)
	}
	return out
}
