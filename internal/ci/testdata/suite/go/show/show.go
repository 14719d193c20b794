// Package show formats what calc computes.
package show

import (
	"fmt"

	"example.com/suite/calc"
)

// Sum says what a plus b is.
func Sum(a, b int) string { return fmt.Sprintf("%d + %d = %d", a, b, calc.Add(a, b)) }
