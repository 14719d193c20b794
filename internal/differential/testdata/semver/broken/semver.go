// Package semver does not compile: Compare returns a helper that was never written.
package semver

// Compare orders two versions.
func Compare(a, b string) int { return compareParts(a, b) }
