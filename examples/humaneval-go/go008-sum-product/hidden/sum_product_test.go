package humaneval

import (
	"fmt"
	"reflect"
	"testing"
)

func TestSumProduct(t *testing.T) {
	assert := newAsserter(t)
	assert.Equal([2]int{0, 1}, SumProduct([]int{}))
	assert.Equal([2]int{3, 1}, SumProduct([]int{1, 1, 1}))
	assert.Equal([2]int{100, 0}, SumProduct([]int{100, 0}))
	assert.Equal([2]int{3 + 5 + 7, 3 * 5 * 7}, SumProduct([]int{3, 5, 7}))
	assert.Equal([2]int{10, 10}, SumProduct([]int{10}))
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
