package semver

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestProbe prints one answer per input for differential testing.
func TestProbe(t *testing.T) {
	pairs := [][2]string{
		{"1.0.0", "1.0.0"}, {"1.0.0", "2.0.0"}, {"2.0.0", "1.0.0"}, {"1.2.3", "1.10.0"},
		{"1.10.0", "1.9.9"}, {"0.0.1", "0.0.0"}, {"3.1.4", "3.1.4"}, {"1.0.0+build", "1.0.0"},
		{"10.0.0", "9.99.99"}, {"1.0.10", "1.0.9"},
	}
	for _, p := range pairs {
		line, err := json.Marshal(map[string]any{"input": p, "output": Compare(p[0], p[1])})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("dixit-probe %s\n", line)
	}
}
