// Package calc does arithmetic.
package calc

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Mul returns a × b.
func Mul(a, b int) int { return a * b }
