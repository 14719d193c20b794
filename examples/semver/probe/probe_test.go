package semver

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestProbe asserts nothing: it prints what Compare answers on every pair below, one
// "dixit-probe" line each, for differential testing (docs/differential.md).
func TestProbe(t *testing.T) {
	pairs := [][2]string{
		// the inputs of the vetted tests
		{"1.10.0", "1.9.0"}, {"1.0.10", "1.0.9"}, {"10.0.0", "9.0.0"},
		{"1.0.0-rc.1", "1.0.0"}, {"1.0.0-alpha", "1.0.0-alpha.1"},
		{"1.0.0-beta.2", "1.0.0-beta.11"}, {"1.0.0-alpha.1", "1.0.0-alpha.beta"},
		{"1.0.0+20130313144700", "1.0.0"},
		// more: where implementations of the spec could differ
		{"1.0.0", "1.0.0"}, {"0.0.0", "0.0.1"}, {"2.0.0", "10.0.0"},
		{"1.0.0-alpha", "1.0.0-beta"}, {"1.0.0-beta", "1.0.0-alpha"},
		{"1.0.0-1", "1.0.0-a"}, {"1.0.0-a", "1.0.0-1"},
		{"1.0.0-alpha.10", "1.0.0-alpha.9"}, {"1.0.0-10", "1.0.0-9"},
		{"1.0.0-rc.1+build.5", "1.0.0-rc.1"}, {"1.0.0+a", "1.0.0+b"},
		{"1.0.0-rc.1+exp", "1.0.0"}, {"1.0.0-x-y", "1.0.0-x"},
		{"1.0.0-Alpha", "1.0.0-alpha"}, {"1.0.0-alpha.1", "1.0.0-alpha.01a"},
		{"1.0.0-0", "1.0.0-00a"}, {"1.0.0-18446744073709551616", "1.0.0-18446744073709551615"},
		{"99999999999999999999.0.0", "1.0.0"},
	}
	for _, p := range pairs {
		line, _ := json.Marshal(map[string]any{"input": p, "output": answer(p[0], p[1])})
		fmt.Println("dixit-probe " + string(line))
	}
}

// answer calls Compare, turning a panic into an answer of its own.
func answer(a, b string) (out any) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	return Compare(a, b)
}
