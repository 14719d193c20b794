// Package greet exists only in vendor/: no proxy serves example.com.
package greet

// Hello greets.
func Hello(name string) string { return "hello, " + name }
