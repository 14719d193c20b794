package localrun_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/localrun"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// The critics protocol end to end with scripted agents and the real judge: the critics'
// corrections reach the fixer, the approved code's own tests run in the sandbox, and a
// failing one goes back to the fixer until the code is accepted.
func TestCriticsProtocolRunsWithTheRealJudge(t *testing.T) {
	out, err := localrun.Run(context.Background(), localrun.Options{
		Population: "testdata/critics", StateDir: t.TempDir(), BuildCache: buildCache,
	})
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, "critics", res.Protocol)
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, 3, res.Rounds, "reviewed, then failing its own test, then accepted")
	var story []string
	for _, ev := range res.Events {
		switch ev.Kind {
		case orchestrate.EvReview, orchestrate.EvOwnTests, orchestrate.EvSolve:
			story = append(story, ev.Agent+" "+ev.Detail)
		}
	}
	assert.Equal(t, []string{
		"pat solve 1",
		"correctness asks for 1 corrections", "design approves", // critics review in name order
		"pat solve 2",
		"correctness approves", "design approves", "pat 0 of 1 test files pass",
		"pat solve 3",
		"correctness approves", "design approves", "pat 1 of 1 test files pass",
	}, story)
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	report := string(md)
	assert.Contains(t, report, "Protocol: **critics**")
	assert.Contains(t, report, "**Outcome: ACCEPTED**")
	assert.Contains(t, report, "| `clamp_test.go` | pass |")
	assert.True(t, strings.Contains(report, "| correctness | approves |"), "the last reviews are shown")
}

// tdg end to end: the human test from the base revision and the designed test condition
// the programmers; no candidate passes both at first, the navigator analyses the
// failures, and the second iteration's candidate is accepted.
func TestTDGProtocolRunsWithTheRealJudge(t *testing.T) {
	out, err := localrun.Run(context.Background(), localrun.Options{
		Population: "testdata/tdg", StateDir: t.TempDir(), BuildCache: buildCache,
	})
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, "ann", res.Final)
	assert.Equal(t, 2, res.Rounds)
	var suites []string
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvSuite {
			suites = append(suites, fmt.Sprintf("r%d %s %s", ev.Round, ev.Agent, ev.Detail))
		}
	}
	assert.Equal(t, []string{
		"r1 ann candidate passes 1 of 2 tests", "r1 ben candidate passes 1 of 2 tests",
		"r2 ann candidate passes 2 of 2 tests", "r2 ben candidate passes 1 of 2 tests",
	}, suites, "the human test (lower bound) and the designed one (upper bound)")
}
