package differential_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/differential"
)

// CodeT's score: coders passing exactly the same tests form a group, and each scores the
// tests the group passes times the coders in it.
func TestDualAgreementScoresGroupsOfIdenticalVerdicts(t *testing.T) {
	passes := map[string][]bool{
		"a": {true, true, false},
		"b": {true, true, false},
		"c": {true, true, true},
		"d": {false, false, false},
		"e": {false, false, false},
	}
	got := differential.DualAgreement([]string{"a", "b", "c", "d", "e"}, passes)
	assert.Equal(t, map[string]int{"a": 4, "b": 4, "c": 3, "d": 0, "e": 0}, got)
	assert.Equal(t, map[string]int{"x": 0}, differential.DualAgreement([]string{"x"}, nil), "no tests: no score")
}
