// Package hello builds with a module go.mod replaces with a directory of the tree.
package hello

import "example.com/greet"

// Message is the greeting.
func Message() string { return greet.Hello([]string{"dixit"}) }
