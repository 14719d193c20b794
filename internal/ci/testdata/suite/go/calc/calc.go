// Package calc is the base of the suite tests: two functions with tests.
package calc

// Add adds.
func Add(a, b int) int { return a + b }

// Sub subtracts.
func Sub(a, b int) int { return a - b }
