package session_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/vet"
)

// The repository's own tests guard the run: bob breaks one while implementing the
// change and is told which, cal breaks it too and deletes it from its tree (the base's
// copy runs anyway), and a tester's test placed in the package passes on the base, so it
// guards existing behaviour, while the other tests the change.
func TestExistingTestsGuardTheCoders(t *testing.T) {
	const pop = "testdata/existing"
	out, err := session.Run(context.Background(), session.Options{
		Population: pop, StateDir: sharedState, BuildCache: buildCache, RunID: fmt.Sprintf("existing-%d", os.Getpid()),
	})
	require.NoError(t, err)
	sum := out.Summary

	require.NotNil(t, sum.Existing)
	assert.Equal(t, []string{"example.com/calc/calc.TestAdd", "example.com/calc/calc.TestAddNegative", "example.com/calc/other.TestTwice"}, sum.Existing.Set.Tests)
	assert.Equal(t, 2, sum.Existing.Set.Runs)

	var told []string
	for _, ev := range sum.Events {
		if ev.Kind == orchestrate.EvExisting && strings.HasPrefix(ev.Detail, "breaks") {
			told = append(told, ev.Agent+": "+ev.Detail)
		}
	}
	assert.ElementsMatch(t, []string{"bob: breaks example.com/calc/calc.TestAddNegative", "cal: breaks example.com/calc/calc.TestAddNegative"}, told)
	for _, c := range sum.Coders {
		assert.Empty(t, c.Breaks, "%s's final tree keeps the existing tests passing", c.Name)
	}

	byPath := map[string]runfile.VettedTest{}
	for _, v := range sum.Vetted {
		byPath[v.Path] = v
	}
	require.Contains(t, byPath, "calc/calc_mul_test.go", "the tester's test went where it belongs")
	require.Contains(t, byPath, "calc/calc_zero_test.go")
	assert.Equal(t, runfile.TestsTheChange, byPath["calc/calc_mul_test.go"].OnBase.Kind())
	assert.Equal(t, runfile.GuardsExisting, byPath["calc/calc_zero_test.go"].OnBase.Kind())

	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## The repository's own tests")
	assert.Contains(t, string(md), "3 existing tests passed in every one of 2 runs")
	assert.Contains(t, string(md), "1 passes there: it guards behaviour the repository already had")

	// bot vet runs them on a patch: one that breaks an existing test fails, and says which.
	patch, err := gitstate.ReadDir(pop + "/coders/bob/1")
	require.NoError(t, err)
	vetted, err := session.Run(context.Background(), session.Options{
		Population: pop, StateDir: sharedState, BuildCache: buildCache, RunID: fmt.Sprintf("existing-vet-%d", os.Getpid()), Patch: patch,
	})
	require.NoError(t, err)
	v := vetted.Summary.Vet
	require.NotNil(t, v)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Contains(t, v.Why, "The patch breaks 1 of the repository's own tests that pass on the base (first: example.com/calc/calc.TestAddNegative")
	require.Len(t, vetted.Summary.Existing.Patch, 1)
}
