package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// 15 of 20 tasks solved: the interval holds 0.75, is not degenerate, and is as wide as
// the binomial's (about ±0.19 at 95 %); the same rows always give the same interval.
func TestBootstrapOverTasks(t *testing.T) {
	var scores []Score
	for i := 0; i < 20; i++ {
		scores = append(scores, Score{Passed: map[bool]int{true: 1}[i < 15], Total: 1})
	}
	in := bootstrap(scores)
	require.NotNil(t, in)
	assert.Less(t, in.Low, 0.75)
	assert.Greater(t, in.High, 0.75)
	assert.InDelta(t, 0.55, in.Low, 0.06)
	assert.InDelta(t, 0.95, in.High, 0.06)
	assert.Equal(t, in, bootstrap(scores))

	assert.Nil(t, bootstrap(scores[:1]), "one task: no interval")
	assert.Nil(t, bootstrap([]Score{{Passed: 1, Total: 1}, {}}), "a task that counts nothing does not count")
	same := bootstrap([]Score{{Passed: 2, Total: 4}, {Passed: 1, Total: 2}})
	assert.Equal(t, &Interval{Low: 0.5, High: 0.5}, same, "tasks that agree: no spread")
}
