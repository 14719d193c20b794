package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/vet"
)

// TestATamperedCoderIsOutOfTheRun runs, through the real judge, a population where coder d
// forges a pass from inside the test's process (it prints a well-framed pass for the test
// that called it and exits 0) and tester exit proposes a test that ends its own process.
// d has no vote on good-1, which is IDEAL at 2 of 3 voters (counting d as failing would
// make it 2 of 4, too hard); exit-1 is rejected without blaming anyone; d is never
// picked, the report names it, the run stops on it saying it tampered; and d's tree vetted
// as a patch fails with the reason naming the tampering.
func TestATamperedCoderIsOutOfTheRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a whole run through the sandboxed judge")
	}
	state := t.TempDir()
	out := runTamper(t, state, nil)
	res := out.Result
	classes := map[string]*orchestrate.Event{}
	for i, ev := range res.Events {
		if ev.Kind == orchestrate.EvClassify {
			classes[ev.Test] = &res.Events[i]
		}
	}
	require.Contains(t, classes, "good-1")
	require.Contains(t, classes, "exit-1")
	assert.Equal(t, orchestrate.Ideal, classes["good-1"].Class)
	for _, c := range classes["good-1"].Cells {
		if c.Coder == "d" {
			assert.Equal(t, "tampered", c.Outcome, c.Output)
		}
	}
	assert.Equal(t, orchestrate.TooHard, classes["exit-1"].Class)
	tampered, judged, blamed := orchestrate.TamperCount(classes["exit-1"].Cells)
	assert.True(t, blamed, "exit-1 tampered on %d of %d coders: %+v", tampered, judged, classes["exit-1"].Cells)

	require.Len(t, res.Vetted, 1)
	assert.Equal(t, []string{"a", "b"}, res.Vetted[0].PassedBy)
	assert.Equal(t, []string{"c"}, res.Vetted[0].FailedBy)
	for _, c := range out.Summary.Coders {
		if c.Name == "d" {
			require.NotNil(t, c.Tampered)
			assert.Equal(t, "good-1", c.Tampered.Test, "exit-1 blames no coder")
			assert.Contains(t, c.Tampered.Evidence, "tampered: ")
		} else {
			assert.Nil(t, c.Tampered, c.Name)
		}
	}
	assert.Equal(t, orchestrate.CodersStuck, res.Outcome)
	assert.Contains(t, res.Reason, "coder d tampered with the test runner (test good-1: ")

	require.NotNil(t, out.Summary.Comparison)
	pick := out.Summary.Comparison.Pick
	assert.NotEqual(t, "d", pick.Coder)
	assert.Equal(t, []string{"a", "b", "c"}, pick.Candidates)
	assert.NotContains(t, out.Summary.Comparison.Proposed, "d", "a forger's passes count in no score")
	assert.NotContains(t, out.Summary.Comparison.Dual, "d")
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Tampered: 1 coder")
	assert.Contains(t, string(md), "| d | `good-1` | `run 1 of 2: tampered: ")
	// Beside it, where the tamper scan of d's change points first; the honest coders' changes
	// hold nothing.
	for _, d := range out.Summary.Comparison.Touched {
		require.NotNil(t, d.Scan, d.Coder)
		if d.Coder != "d" {
			assert.Empty(t, d.Scan.Findings, d.Coder)
			continue
		}
		require.NotEmpty(t, d.Scan.Findings)
		first := d.Scan.Findings[0]
		assert.Equal(t, [3]any{"calc.go", 18, "a test's name looked for"}, [3]any{first.Path, first.Line, first.Found})
	}
	assert.Contains(t, string(md), "| `calc.go:18` a test's name looked for; `calc.go:19` the runner's report words")
	assert.Contains(t, string(md), "\nNo finding in the change of a, b and c.\n")

	// d's tree as the patch under review of the same run: a failure that says why.
	patch, err := gitstate.ReadDir(filepath.Join("testdata", "tamper", "coders", "d", "1"))
	require.NoError(t, err)
	vetted := runTamper(t, state, patch)
	v := vetted.Summary.Vet
	require.NotNil(t, v)
	assert.Equal(t, vet.Failure, v.Conclusion, v.Why)
	assert.Contains(t, v.Why, "(tampered)", "the failure sentence names the verdict")
	require.NotEmpty(t, v.Vetted)
	assert.Equal(t, 3, v.Vetted[0].Implementations, "d is no independent implementation")
	assert.Contains(t, v.Why, "The patch tampered with the test runner on test good-1: run 1 of 2: tampered: ")
}

func runTamper(t *testing.T, state string, patch ci.Tree) *session.Outcome {
	t.Helper()
	out, err := session.Run(context.Background(), session.Options{
		Population: "testdata/tamper", StateDir: state, BuildCache: buildCache, RunID: fmt.Sprintf("tamper-%d", os.Getpid()), Patch: patch,
	})
	require.NoError(t, err)
	return out
}
