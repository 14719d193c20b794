package humaneval

import (
	"fmt"
	"reflect"
	"testing"
)

func TestHasCloseElements(t *testing.T) {
	assert := newAsserter(t)
	assert.Equal(true, HasCloseElements([]float64{11.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.3))
	assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.05))
	assert.Equal(true, HasCloseElements([]float64{1.0, 2.0, 5.9, 4.0, 5.0}, 0.95))
	assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 5.9, 4.0, 5.0}, 0.8))
	assert.Equal(true, HasCloseElements([]float64{1.0, 2.0, 3.0, 4.0, 5.0, 2.0}, 0.1))
	assert.Equal(true, HasCloseElements([]float64{1.1, 2.2, 3.1, 4.1, 5.1}, 1.0))
	assert.Equal(false, HasCloseElements([]float64{1.1, 2.2, 3.1, 4.1, 5.1}, 0.5))
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
