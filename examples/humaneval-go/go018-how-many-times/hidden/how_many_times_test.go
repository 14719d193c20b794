package humaneval

import (
	"fmt"
	"reflect"
	"testing"
)

func TestHowManyTimes(t *testing.T) {
	assert := newAsserter(t)
	assert.Equal(0, HowManyTimes("", "x"))
	assert.Equal(4, HowManyTimes("xyxyxyx", "x"))
	assert.Equal(4, HowManyTimes("cacacacac", "cac"))
	assert.Equal(1, HowManyTimes("john doe", "john"))
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
