package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	sum := a
	sum += b
	return sum
}
