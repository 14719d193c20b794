// Package semver compares versions.
package semver

import (
	"strconv"
	"strings"
)

// Compare orders two versions: -1, 0 or 1. Equal numbers fall back to comparing the
// text, so the order is total.
func Compare(a, b string) int {
	fa, fb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(fa) && i < len(fb); i++ {
		x, y := leading(fa[i]), leading(fb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a, b)
}

// leading reads the digits a field starts with.
func leading(s string) int {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}
