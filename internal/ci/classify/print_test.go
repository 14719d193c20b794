package classify

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
)

func TestResultsAreWrittenThenPrintedForAPerson(t *testing.T) {
	tree := strings.Repeat("ab", 20)
	res := Results{Schema: Schema, Batch: "b1", Coder: "basil", Tree: tree, Reruns: 20, Isolation: "bwrap", Seconds: 3.04,
		Tests: []TestResult{
			{ID: "t1", Outcome: ci.Pass, Runs: 20},
			{ID: "t2", Outcome: ci.Fail, Runs: 3, FailedRun: 3},
			{ID: "t3", Outcome: ci.BuildFailed},
		}}
	name := filepath.Join(t.TempDir(), "out", "results.json")
	require.NoError(t, res.Write(name), "the directory is made")
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	want, err := res.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(data))

	var out bytes.Buffer
	res.Print(&out, name)
	assert.Equal(t, "coder basil, tree "+tree+": 1 of 3 tests pass (20 reruns, bwrap, 3.0 s); verdicts in "+name+"\n"+
		"  t1                       pass\n"+
		"  t2                       fail at run 3\n"+
		"  t3                       build_failed\n", out.String())
}
