package humaneval

import (
	"fmt"
	"reflect"
	"testing"
)

func TestSortNumbers(t *testing.T) {
	assert := newAsserter(t)
	assert.Equal("", SortNumbers(""))
	assert.Equal("three", SortNumbers("three"))
	assert.Equal("three five nine", SortNumbers("three five nine"))
	assert.Equal("zero four five seven eight nine", SortNumbers("five zero four seven nine eight"))
	assert.Equal("zero one two three four five six", SortNumbers("six five four three two one zero"))
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
