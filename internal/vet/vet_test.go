package vet_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/mutation"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// tree is a small Go module whose Sum is body.
func tree(t *testing.T, body string) ci.Tree {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/sum\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sum.go"), []byte("package sum\n\n// Sum adds up xs.\nfunc Sum(xs ...int) int {\n"+body+"}\n"), 0o644))
	tr, err := gitstate.ReadDir(dir)
	require.NoError(t, err)
	return tr
}

func candidate(id, check string) orchestrate.Candidate {
	return orchestrate.Candidate{ID: id, Tester: "t", Content: []byte("package sum\n\nimport \"testing\"\n\nfunc TestCheck(t *testing.T) {\n\tif !(" + check + ") {\n\t\tt.Fatal(\"" + id + "\")\n\t}\n}\n")}
}

// TestAPlantedBugFailsTheVettedTestThatCatchesIt judges patches with the real judge
// against a run's tests: a patch that forgets negative numbers fails the vetted test about
// them, which every independent implementation passes; a correct patch succeeds only when
// the run ended with the testers exhausted.
func TestAPlantedBugFailsTheVettedTestThatCatchesIt(t *testing.T) {
	contract, _ := languages.Preset("go")
	contract.Timeout = 30 * time.Second
	cache := os.Getenv("DIXIT_CI_TEST_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "dixit-ci-test-cache")
	}
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(), CacheDir: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { judge.Close() })

	loop := "\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n"
	impls := []differential.Implementation{{Coder: "amber", Tree: tree(t, loop)}, {Coder: "basil", Tree: tree(t, loop)},
		{Coder: "cedar", Tree: tree(t, "\tif len(xs) == 0 {\n\t\treturn 0\n\t}\n\treturn xs[0] + Sum(xs[1:]...)\n")}}
	small, negative, empty := candidate("t-1", "Sum(2, 3) == 5"), candidate("t-2", "Sum(-2, 1) == -1"), candidate("t-3", "Sum() == 0")
	wrong := candidate("t-4", "Sum(1, 1) == 3") // too hard: every implementation fails it
	unanimous := candidate("t-5", "Sum(-1, -1) == -2")
	res := &orchestrate.Result{
		Outcome:   orchestrate.TestersExhausted,
		Proposals: []orchestrate.Candidate{small, negative, wrong, empty, unanimous},
		Vetted: []orchestrate.Vetted{{Candidate: small, Number: 1}, {Candidate: negative, Number: 2},
			{Candidate: empty, Number: 3}},
	}
	buggy := tree(t, "\ts := 0\n\tfor _, x := range xs {\n\t\tif x > 0 {\n\t\t\ts += x\n\t\t}\n\t}\n\treturn s\n")

	v, err := vet.Judge(context.Background(), vet.Judging{Judge: judge, Reruns: 3, Gate: vet.Gate{Share: 0.6}}, buggy, impls, res)
	require.NoError(t, err)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Equal(t, "The patch fails 2 of 4 tests (3 vetted, 1 more that at least 60 % of the independent implementations pass); test 2, which 3 of 3 independent implementations pass, is the first (fail).", v.Why)
	require.Len(t, v.Others, 2)
	assert.False(t, v.Others[0].Gated, "too hard: no implementation passes it")
	assert.True(t, v.Others[1].Gated, "every implementation passes it")

	v, err = vet.Judge(context.Background(), vet.Judging{Judge: judge, Reruns: 3}, buggy, impls, res)
	require.NoError(t, err)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Equal(t, 2, v.Passes)
	require.Len(t, v.Vetted, 3)
	caught := v.Vetted[1]
	assert.Equal(t, "t-2", caught.ID)
	assert.Equal(t, ci.Fail, caught.Patch.Outcome)
	assert.Contains(t, caught.Patch.Output, "t-2", "the patch's failure output")
	assert.Equal(t, []string{"amber", "basil", "cedar"}, caught.PassedBy)
	assert.Equal(t, "The patch fails 1 of 3 vetted tests; test 2, which 3 of 3 independent implementations pass, is the first (fail).", v.Why)
	require.Len(t, v.Others, 2, "proposals that were not vetted are judged too")
	assert.Empty(t, v.Others[0].PassedBy)
	assert.False(t, v.Others[1].Gated, "the vetted suite alone")

	v, err = vet.Judge(context.Background(), vet.Judging{Judge: judge, Reruns: 3}, tree(t, loop), impls, res)
	require.NoError(t, err)
	assert.Equal(t, vet.Success, v.Conclusion, v.Why)
	assert.Equal(t, 3, v.Passes)

	res.Outcome = orchestrate.CodersStuck
	v, err = vet.Judge(context.Background(), vet.Judging{Judge: judge, Reruns: 3}, tree(t, loop), impls, res)
	require.NoError(t, err)
	assert.Equal(t, vet.Neutral, v.Conclusion)
	assert.Equal(t, "The patch passes all 3 vetted tests, but the run ended CODERS_STUCK, so the suite may not be complete.", v.Why)
}

// The threshold gate adds the proposed tests the Dixit rule kept out because every
// implementation passes them: a patch failing one fails, and the reason names it.
func TestTheThresholdGateHoldsTheUnanimousTests(t *testing.T) {
	pass, fail := ci.Verdict{Outcome: ci.Pass}, ci.Verdict{Outcome: ci.Fail}
	three := []string{"amber", "basil", "cedar"}
	verdict := func(share float64) vet.Verdict {
		return vet.Verdict{GateShare: share,
			Vetted: []vet.Finding{{ID: "t-1", Number: 1, Patch: pass, PassedBy: three[:2], Implementations: 3}},
			Others: []vet.Finding{
				{ID: "t-2", Patch: fail, PassedBy: three, Implementations: 3, Gated: share > 0}, // unanimous
				{ID: "t-3", Patch: fail, PassedBy: three[:1], Implementations: 3, Gated: false}, // too hard
			}}
	}
	v := verdict(0.6)
	vet.Conclude(&v, orchestrate.TestersExhausted)
	assert.Equal(t, vet.Failure, v.Conclusion)
	assert.Equal(t, "The patch fails 1 of 2 tests (1 vetted, 1 more that at least 60 % of the independent implementations pass); the proposed test t-2, which 3 of 3 independent implementations pass, is the first (fail).", v.Why)

	v = verdict(0)
	vet.Conclude(&v, orchestrate.TestersExhausted)
	assert.Equal(t, vet.Success, v.Conclusion, "the vetted suite alone lets it through")

	v = verdict(0.6)
	v.Others[0].Patch = pass
	vet.Conclude(&v, orchestrate.TestersExhausted)
	assert.Equal(t, vet.Success, v.Conclusion)
	assert.Equal(t, "The patch passes the 1 vetted test and the 1 other proposed test that at least 60 % of the independent implementations pass, and the testers found nothing more that most independent implementations agree on.", v.Why)

	v = vet.Verdict{GateShare: 0.6, Others: []vet.Finding{{ID: "t-2", Patch: fail, PassedBy: three, Implementations: 3, Gated: true}}}
	vet.Conclude(&v, orchestrate.TestersExhausted)
	assert.Equal(t, vet.Failure, v.Conclusion, "nothing vetted, but a unanimous test still catches it")
}

func TestConcludeWithNothingVetted(t *testing.T) {
	var v vet.Verdict
	vet.Conclude(&v, orchestrate.TestersExhausted)
	assert.Equal(t, vet.Neutral, v.Conclusion, "passing zero tests proves nothing")
}

func TestDifferencesAreFromTheMajority(t *testing.T) {
	rep := differential.Report{Disagreements: []differential.Disagreement{
		{Input: "a", Outputs: map[string]string{vet.PatchName: "1", "x": "0", "y": "0", "z": "2"}}, // patch odd
		{Input: "b", Outputs: map[string]string{vet.PatchName: "0", "x": "0", "y": "0", "z": "2"}}, // z odd, not the patch
		{Input: "c", Outputs: map[string]string{vet.PatchName: "5", "x": "1", "y": "2"}},           // no majority
		{Input: "d", Outputs: map[string]string{vet.PatchName: "", "x": "3", "y": "3"}},            // the patch gave no answer
	}}
	assert.Equal(t, []vet.Difference{
		{Input: "a", Patch: "1", Consensus: "0", Agree: 2, Of: 3},
		{Input: "d", Patch: "", Consensus: "3", Agree: 2, Of: 2},
	}, vet.Differences(rep))
}

// The vet verdict covers every reason in the table of outcomes: a patch that passes every
// vetted test gets what the reason allows, and one that fails a vetted test fails.
func TestConcludeFollowsTheTableOfOutcomes(t *testing.T) {
	for _, r := range orchestrate.Reasons() {
		t.Run(string(r.Outcome), func(t *testing.T) {
			passing := vet.Verdict{Vetted: []vet.Finding{{ID: "t-1", Number: 1, Patch: ci.Verdict{Outcome: ci.Pass}}}}
			vet.Conclude(&passing, r.Outcome)
			assert.Equal(t, r.Vet, passing.Conclusion)
			assert.Contains(t, passing.Why, "passes the 1 vetted test")

			failing := vet.Verdict{Vetted: []vet.Finding{{ID: "t-1", Number: 1, Patch: ci.Verdict{Outcome: ci.Fail}}}}
			vet.Conclude(&failing, r.Outcome)
			assert.Equal(t, vet.Failure, failing.Conclusion)
		})
	}
}

// A pass whose tests were shown before the patch was pushed is withdrawn; anything else
// stands as it was.
func TestWithdrawOnlyTakesBackAPass(t *testing.T) {
	pass := vet.Verdict{Conclusion: vet.Success, Why: "passes all 3"}
	require.True(t, pass.Withdraw("shown before"))
	assert.Equal(t, vet.Neutral, pass.Conclusion)
	assert.Equal(t, "shown before", pass.Why)

	fail := vet.Verdict{Conclusion: vet.Failure, Why: "fails t2"}
	require.False(t, fail.Withdraw("shown before"))
	assert.Equal(t, vet.Verdict{Conclusion: vet.Failure, Why: "fails t2"}, fail)
}

// TestScoreMutantsSaysHowStrongTheSuiteIsOnThePatch mutates a patch with the real judge:
// a suite that checks a sum kills both of its mutants, one that only checks the empty sum
// kills neither, and with nothing vetted nothing is measured.
func TestScoreMutantsSaysHowStrongTheSuiteIsOnThePatch(t *testing.T) {
	contract, _ := languages.Preset("go")
	contract.Timeout = 30 * time.Second
	cache := os.Getenv("DIXIT_CI_TEST_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "dixit-ci-test-cache")
	}
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(), CacheDir: cache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { judge.Close() })
	// Two mutants: == becomes != and + becomes -.
	patch := tree(t, "\tif len(xs) == 0 {\n\t\treturn 0\n\t}\n\ts := 0\n\tfor _, x := range xs {\n\t\ts = s + x\n\t}\n\treturn s\n")
	opts := mutation.Options{Judge: judge, Reruns: 1, Private: contract.Private}
	tests := []struct {
		name   string
		vetted []orchestrate.Candidate
		want   string
	}{
		{"a sum", []orchestrate.Candidate{candidate("t-1", "Sum(2, 3) == 5")}, "the vetted suite kills 2 of 2 mutants of this patch (100 %)"},
		{"only the empty sum", []orchestrate.Candidate{candidate("t-3", "Sum() == 0")}, "the vetted suite kills 0 of 2 mutants of this patch (0 %)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := &orchestrate.Result{}
			for i, c := range tc.vetted {
				res.Vetted = append(res.Vetted, orchestrate.Vetted{Candidate: c, Number: i + 1})
			}
			var v vet.Verdict
			require.NoError(t, vet.ScoreMutants(context.Background(), opts, patch, res, &v))
			require.NotNil(t, v.Mutants)
			assert.Equal(t, tc.want, v.Mutants.Sentence())
		})
	}
	var v vet.Verdict
	require.NoError(t, vet.ScoreMutants(context.Background(), opts, patch, &orchestrate.Result{}, &v))
	assert.Nil(t, v.Mutants, "nothing vetted, nothing measured")
}
