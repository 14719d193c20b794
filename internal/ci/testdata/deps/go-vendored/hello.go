// Package hello builds only from its vendor directory.
package hello

import "example.com/greet"

// Message is the greeting.
func Message() string { return greet.Hello("dixit") }
