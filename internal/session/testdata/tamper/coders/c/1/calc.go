package calc

// Add returns a + b (of their magnitudes: a bug).
func Add(a, b int) int {
	if a < 0 {
		a = -a
	}
	return a + b
}
