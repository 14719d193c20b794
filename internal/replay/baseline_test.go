package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dataPath finds the data set the repository ships, compressed: BASELINE.md's figures must
// come out of the very bytes a user's clone holds.
func dataPath(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test")
		dir = parent
	}
	path := filepath.Join(dir, "data", "humaneval-replay", "problems.jsonl.gz")
	_, err = os.Stat(path)
	require.NoError(t, err, "the replay data set ships with the repository")
	return path
}

// BASELINE.md's rows, as printed there: kind, K, panels, then the test figures and picks.
var baselineRows = []struct {
	kind                                           string
	k, panels, kept                                int
	anyKept, precision, wrongRejected, correctLost string
	allPassShare, allPassPrecision                 string
	hasCorrect, random, codeT, made, dixit         string
	codeTSame, randomSame, empty                   string
}{
	{"diverse", 3, 3280, 32529, "59.6", "89.9", "98.2", "73.8", "85.8", "98.5", "84.4", "60.0", "75.1", "56.8", "65.7", "69.9", "45.7", "2.8"},
	{"diverse", 5, 3280, 52119, "74.5", "94.1", "98.3", "56.0", "87.0", "99.7", "89.5", "60.2", "77.6", "72.3", "72.9", "75.1", "51.7", "2.2"},
	{"diverse", 7, 3280, 53522, "76.6", "97.8", "99.4", "53.0", "74.5", "99.8", "92.3", "60.3", "79.0", "76.5", "73.1", "78.4", "55.3", "0.1"},
	{"random", 3, 3280, 34198, "61.3", "84.5", "97.1", "74.1", "33.4", "95.2", "41.8", "24.3", "37.6", "58.5", "31.5", "38.3", "21.3", "2.8"},
	{"random", 5, 3280, 44224, "70.3", "89.5", "97.4", "64.5", "25.0", "99.4", "53.2", "24.9", "43.3", "68.4", "38.3", "46.3", "25.3", "2.0"},
	{"random", 7, 3280, 31161, "57.6", "95.3", "99.2", "73.4", "15.4", "99.2", "59.3", "24.3", "45.6", "57.5", "38.5", "50.0", "28.6", "0.0"},
	{"same:codet/codegen-16b", 3, 3280, 34142, "60.5", "82.2", "96.7", "74.8", "30.0", "96.7", "32.8", "19.8", "29.4", "58.4", "26.4", "31.3", "17.8", "2.1"},
	{"same:codet/codegen-16b", 5, 3280, 41527, "66.7", "87.4", "97.1", "67.5", "22.2", "98.7", "38.7", "20.1", "32.7", "64.4", "31.9", "36.6", "21.4", "2.3"},
	{"same:codet/codegen-16b", 7, 3280, 29294, "55.3", "94.0", "99.0", "75.3", "15.0", "99.4", "42.6", "20.3", "35.2", "55.2", "32.4", "41.0", "24.0", "0.1"},
	{"same:agentcoder/gpt-3.5-turbo-1106", 3, 3240, 36822, "50.4", "94.2", "98.8", "68.7", "75.7", "95.9", "79.0", "58.8", "73.6", "49.6", "59.9", "67.9", "41.8", "0.8"},
	{"same:agentcoder/gpt-3.5-turbo-1106", 5, 2740, 40820, "61.3", "95.9", "98.8", "57.1", "74.1", "95.1", "83.9", "59.7", "73.1", "59.9", "63.0", "67.1", "47.3", "1.5"},
}

// TestReplayReproducesBaseline replays the whole data set as BASELINE.md did and expects
// its every printed figure: the panels are Python's own, so there is no sampling noise.
func TestReplayReproducesBaseline(t *testing.T) {
	path := dataPath(t)
	start := time.Now()
	problems, err := LoadFile(context.Background(), path)
	require.NoError(t, err)
	require.Len(t, problems, 164)
	loaded := time.Since(start)
	rep, err := Run(context.Background(), problems, DefaultConfig(), nil)
	require.NoError(t, err)
	t.Logf("load %.1f s, replay %.1f s", loaded.Seconds(), (time.Since(start) - loaded).Seconds())

	p := func(x float64) string { return fmt.Sprintf("%.1f", 100*x) }
	for _, b := range baselineRows {
		t.Run(fmt.Sprintf("%s/K=%d", b.kind, b.k), func(t *testing.T) {
			row, ok := rep.Find(b.kind, b.k, 60)
			require.True(t, ok)
			f := row.Figures
			assert.Equal(t, b.panels, row.Panels, "panels")
			assert.Equal(t, b.kept, f.KeptTests, "kept tests")
			assert.Equal(t,
				[]string{b.anyKept, b.precision, b.wrongRejected, b.correctLost, b.allPassShare, b.allPassPrecision},
				[]string{p(f.AnyKept), p(f.KeptPrecision), p(f.WrongRejected), p(f.CorrectLost), p(f.LostAllPass), p(f.AllPassPrecision)},
				"test figures")
			assert.Equal(t,
				[]string{b.hasCorrect, b.random, b.codeT, b.made, b.dixit, b.codeTSame, b.randomSame, b.empty},
				[]string{p(f.HasCorrect), p(f.RandomPick), p(f.CodeTPick), p(f.DixitMade), p(f.DixitPick), p(f.CodeTSame), p(f.RandomSame), p(f.EmptyConsensus)},
				"picks")
		})
	}

	// Kept-test precision by tester, diverse panels: "precision (kept)".
	byTester := map[int][]string{
		3: {"96.6 (5788)", "86.7 (22844)", "98.2 (3897)"},
		5: {"97.3 (9538)", "92.5 (36300)", "98.8 (6281)"},
		7: {"98.6 (9797)", "97.4 (37313)", "99.3 (6412)"},
	}
	for k, want := range byTester {
		row, ok := rep.Find("diverse", k, 60)
		require.True(t, ok)
		var got []string
		for _, s := range []string{"agentcoder/gpt-3.5-turbo-1106", "codet/codegen-16b", "reflexion/gpt-4"} {
			got = append(got, fmt.Sprintf("%s (%d)", p(row.Figures.TesterPrecision[s]), row.Figures.TesterKept[s]))
		}
		assert.Equal(t, want, got, "diverse K=%d by tester", k)
	}

	// Issue 23's hand computation, made outside this code on the same panels: faults
	// caught at diverse K=5, per-problem precision, and K=7 on the 139 problems diverse
	// K=9 is possible on.
	k5, _ := rep.Find("diverse", 5, 60)
	r := k5.Figures.Faults
	assert.Equal(t, []string{"76.3", "3.9", "97.6", "4.4", "99.5", "88.8"},
		[]string{p(r.VettedWrong), p(r.VettedCorrect), p(r.OracleWrong), p(r.OracleCorrect), p(r.AllWrong), p(r.AllCorrect)},
		"faults caught: vetted, oracle, all proposed (wrong caught, correct rejected)")
	assert.Equal(t, "96.2", p(k5.Spread.MeanPrecision), "per-problem precision, averaged")
	assert.Equal(t, 10, k5.Spread.Below80, "problems below 80%")
	k7, ok := rep.Comparable("diverse", 7, 60)
	require.True(t, ok)
	assert.Equal(t, CommonProblems, k7.Set)
	assert.Equal(t, 139, k7.Problems)
	assert.Equal(t, "99.1", p(k7.Figures.KeptPrecision), "diverse K=7 on the K=9 problems")
	k9, _ := rep.Comparable("diverse", 9, 60)
	assert.Equal(t, 139, k9.Problems)
	assert.Less(t, k9.CI.Precision.Lo, k7.Figures.KeptPrecision, "K=7 → 9 on the same problems is within noise")

	// The hybrid never does worse than the Dixit consensus on diverse panels.
	for _, k := range []int{3, 5, 7} {
		row, _ := rep.Find("diverse", k, 60)
		assert.GreaterOrEqual(t, row.Figures.HybridSame, row.Figures.DixitPick, "diverse K=%d", k)
	}
}
