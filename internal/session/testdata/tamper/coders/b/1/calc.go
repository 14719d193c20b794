package calc

// Add returns a + b, the other way round.
func Add(a, b int) int { return b + a }
