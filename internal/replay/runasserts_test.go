package replay

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An empty-body stub against asserts that pass on None, fail, raise and loop: each result
// as the data set's runner would record it, nothing compared with any matrix.
func TestRunAssertsGivesEachAssertsResult(t *testing.T) {
	j := sandboxJudge(t)
	p := &Problem{TaskID: "made/stub", Tests: []Test{
		{ID: "a", Code: "assert not f(1)"},
		{ID: "b", Code: "assert f(1) == 2"},
		{ID: "c", Code: "assert f(1) + 1 == 2"},
		{ID: "d", Code: "assert [x for x in iter(int, 1)]"},
		{ID: "e", Code: "assert f(2) is None"},
	}}
	got, err := RunAsserts(context.Background(), j, p, "def f(x):\n    pass\n")
	require.NoError(t, err)
	assert.Equal(t, []string{AssertPass, AssertFail, AssertFail, AssertTimeout, AssertPass}, got)

	_, err = RunAsserts(context.Background(), nil, p, "")
	assert.ErrorContains(t, err, "run asserts on made/stub: no judge")
}
