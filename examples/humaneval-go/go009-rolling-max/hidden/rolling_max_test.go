package humaneval

import (
	"fmt"
	"reflect"
	"testing"
)

func TestRollingMax(t *testing.T) {
	assert := newAsserter(t)
	assert.Equal([]int{}, RollingMax([]int{}))
	assert.Equal([]int{1, 2, 3, 4}, RollingMax([]int{1, 2, 3, 4}))
	assert.Equal([]int{4, 4, 4, 4}, RollingMax([]int{4, 3, 2, 1}))
	assert.Equal([]int{3, 3, 3, 100, 100}, RollingMax([]int{3, 2, 3, 100, 3}))
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
