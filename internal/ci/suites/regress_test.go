package suites

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/contract"
)

func TestSuiteRegressionReasons(t *testing.T) {
	base := Result{Outcome: contract.Pass, Runs: 3,
		Tests:  map[string]contract.Outcome{"a": contract.Pass, "b": contract.Pass, "c": contract.Pass, "d": contract.Pass, "flaky": contract.Fail, "broken": contract.Fail},
		Passed: map[string]int{"a": 3, "b": 3, "c": 3, "d": 3, "flaky": 2, "broken": 0}}
	set := NewRegressionSet(base)
	require.Equal(t, RegressionSet{Tests: []string{"a", "b", "c", "d"}, Flaky: []string{"flaky"}, Runs: 3}, set)

	tree := Result{Outcome: contract.Pass, Runs: 2,
		Tests:    map[string]contract.Outcome{"a": contract.Pass, "b": contract.Fail, "c": Skipped, "flaky": contract.Fail},
		Passed:   map[string]int{"a": 2, "b": 1, "c": 0, "flaky": 0},
		Messages: map[string]string{"b": "want 2"}}
	assert.Equal(t, []Regression{
		{Test: "b", Reason: "failed in 1 of 2 runs: want 2"},
		{Test: "c", Reason: "was skipped"},
		{Test: "d", Reason: "did not run: the tree no longer has it, or its file or package failed before it ran"},
	}, Regressions(set, tree), "a flaky test of the base is no regression")

	assert.Empty(t, Regressions(set, Result{Outcome: contract.Pass, Scope: []string{}}), "an empty scope ran nothing")
	assert.Empty(t, NewRegressionSet(Result{Outcome: contract.Timeout, Tests: base.Tests, Passed: base.Passed}).Tests,
		"a base whose suite did not finish guards nothing")
}

func TestSuiteScopes(t *testing.T) {
	scope := []string{"example.com/m/a", "tests/test_x.py", "example.com/m/c/..."}
	assert.True(t, inScope("example.com/m/c.TestX", scope))
	assert.True(t, inScope("example.com/m/c/d.TestX", scope))
	assert.True(t, inScope("example.com/m/a.TestX", scope))
	assert.False(t, inScope("example.com/m/a/b.TestX", scope), "a sub-package is a package of its own")
	assert.True(t, inScope("tests/test_x.py::TestC::test_m", scope))
	assert.True(t, inScope("tests/test_x.py", scope))
	assert.False(t, inScope("tests/test_y.py::test_z", scope))
}
