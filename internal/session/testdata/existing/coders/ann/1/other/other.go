// Package other is untouched by the change: its tests need not run again.
package other

// Twice doubles n.
func Twice(n int) int { return 2 * n }
