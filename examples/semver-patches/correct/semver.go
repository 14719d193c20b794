// Package semver orders version strings by Semantic Versioning 2.0.0 precedence.
package semver

import (
	"strconv"
	"strings"
)

// version is a parsed SemVer 2.0.0 string. Build metadata is dropped
// because it never takes part in precedence.
type version struct {
	major, minor, patch uint64
	pre                 []string
}

func parse(s string) version {
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	var v version
	if i := strings.IndexByte(s, '-'); i >= 0 {
		v.pre = strings.Split(s[i+1:], ".")
		s = s[:i]
	}
	parts := strings.SplitN(s, ".", 3)
	v.major, _ = strconv.ParseUint(parts[0], 10, 64)
	v.minor, _ = strconv.ParseUint(parts[1], 10, 64)
	v.patch, _ = strconv.ParseUint(parts[2], 10, 64)
	return v
}

// Compare compares two valid SemVer 2.0.0 version strings (without a leading "v")
// by precedence. It returns -1 if a < b, 0 if a and b have the same precedence,
// and +1 if a > b. Build metadata is ignored.
func Compare(a, b string) int {
	va, vb := parse(a), parse(b)
	if c := cmpUint(va.major, vb.major); c != 0 {
		return c
	}
	if c := cmpUint(va.minor, vb.minor); c != 0 {
		return c
	}
	if c := cmpUint(va.patch, vb.patch); c != 0 {
		return c
	}
	return comparePre(va.pre, vb.pre)
}

func cmpUint(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// comparePre orders pre-release identifier lists. An empty list means a
// normal release, which ranks above any pre-release of the same version.
func comparePre(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareIdent(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(a)), uint64(len(b)))
}

func compareIdent(a, b string) int {
	na, aNum := numeric(a)
	nb, bNum := numeric(b)
	switch {
	case aNum && bNum:
		return cmpUint(na, nb)
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return strings.Compare(a, b)
}

func numeric(s string) (uint64, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}
