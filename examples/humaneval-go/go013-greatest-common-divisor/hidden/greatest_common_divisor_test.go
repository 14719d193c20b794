package humaneval

import (
	"fmt"
	"reflect"
	"testing"
)

func TestGreatestCommonDivisor(t *testing.T) {
	assert := newAsserter(t)
	assert.Equal(1, GreatestCommonDivisor(3, 7))
	assert.Equal(5, GreatestCommonDivisor(10, 15))
	assert.Equal(7, GreatestCommonDivisor(49, 14))
	assert.Equal(12, GreatestCommonDivisor(144, 60))
}

// asserter replaces testify's assert in HumanEval-X's test, so the test needs no module.
type asserter struct{ t *testing.T }

func newAsserter(t *testing.T) asserter { return asserter{t} }

// Equal reports a failure when want and got differ, as testify's assert.Equal does.
func (a asserter) Equal(want, got any, msgAndArgs ...any) bool {
	a.t.Helper()
	if reflect.DeepEqual(want, got) {
		return true
	}
	a.t.Errorf("not equal:\nwant: %#v\n got: %#v %s", want, got, fmt.Sprint(msgAndArgs...))
	return false
}
