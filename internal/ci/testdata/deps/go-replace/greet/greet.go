// Package greet is in the tree, replaced into the build by go.mod; it needs go-cmp,
// which only its own go.mod names, so the prepare must read it.
package greet

import "github.com/google/go-cmp/cmp"

// Hello greets, and knows its own name.
func Hello(names []string) string {
	if cmp.Equal(names, []string{"dixit"}) {
		return "hello, dixit"
	}
	return "hello, stranger"
}
