package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/vet"
)

// TestVetNamesTheVettedTestThatCatchesAPlantedBug vets two patches for the demo's issue:
// one compares version numbers as strings (the bug the issue is about), one is a consensus
// implementation. The run, and so what was vetted, is the same for both.
func TestVetNamesTheVettedTestThatCatchesAPlantedBug(t *testing.T) {
	t.Parallel()
	id := fmt.Sprintf("vet-%d", os.Getpid())
	// The run first, as bot demo makes it: vetting leaves its report as it wrote it.
	run, err := runDemo(t, id, nil)
	require.NoError(t, err)
	runMD, err := os.ReadFile(run.Report)
	require.NoError(t, err)
	runJSON, err := os.ReadFile(run.JSON)
	require.NoError(t, err)
	vetDemo := func(patch string) *session.Outcome {
		tree, err := gitstate.ReadDir(patch)
		require.NoError(t, err)
		out, err := session.Run(context.Background(), session.Options{
			Population: demo, StateDir: sharedState, BuildCache: buildCache, RunID: id, Patch: tree,
		})
		require.NoError(t, err)
		require.NotNil(t, out.Summary.Vet)
		return out
	}
	buggy := vetDemo("../../examples/semver-patches/string-compare")
	assert.Equal(t, filepath.Join(run.RunDir, "vet-report.md"), buggy.Report, "the vet report sits beside the run's")
	assert.Equal(t, filepath.Join(run.RunDir, "vet-report.html"), buggy.HTML)
	assert.Equal(t, filepath.Join(run.RunDir, "vet-summary.json"), buggy.JSON)
	v := buggy.Summary.Vet
	assert.Equal(t, vet.Failure, v.Conclusion, v.Why)
	require.NotEmpty(t, v.Vetted)
	first := v.Vetted[0]
	assert.Equal(t, "ivy-3", first.ID, "the vetted test about numeric fields")
	assert.False(t, first.Patch.Passed())
	assert.Contains(t, first.Patch.Output, `Compare("1.10.0", "1.9.0") = -1, want 1`, "the patch's own failure output")
	assert.Len(t, first.PassedBy, 5, "every independent implementation passes it")
	assert.True(t, strings.HasPrefix(v.Why, "The patch fails "), v.Why)
	// One sentence after another, never "(fail).; it turns".
	assert.Regexp(t, `is the first \(\w+\)\. It turns 1 of the 3 vetted tests that fail on the base revision from failing to passing\.$`, v.Why)
	assert.NotContains(t, v.Why, ".;")
	md, err := os.ReadFile(buggy.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## The patch under review\n\n**Verdict: failure.**")
	assert.Contains(t, string(md), "func TestCompareNumericFields", "the failing vetted test is shown to the human")
	var sum map[string]any
	data, err := os.ReadFile(buggy.JSON)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	assert.Equal(t, "failure", sum["vet"].(map[string]any)["conclusion"])

	var inputs []string
	for _, d := range v.Differences {
		inputs = append(inputs, d.Input)
	}
	assert.Contains(t, inputs, `["1.10.0","1.9.0"]`, "the probe shows the patch ordering 1.10.0 before 1.9.0: %v", inputs)
	assert.Contains(t, string(md), "the patch answers otherwise than most implementations")

	good := vetDemo(filepath.Join(demo, "coders", "amber", "1")) // a consensus implementation
	assert.Equal(t, vet.Success, good.Summary.Vet.Conclusion, good.Summary.Vet.Why)
	assert.Contains(t, good.Summary.Vet.Why, ". It turns 3 of the 3 vetted tests that fail on the base revision from failing to passing.")
	require.NotNil(t, good.Summary.Vet.Mutants, "a patch that passes has its mutants scored")
	assert.Positive(t, good.Summary.Vet.Mutants.Killed, "the demo's vetted tests kill some mutants of a correct Compare")
	goodMD, err := os.ReadFile(good.Report)
	require.NoError(t, err)
	assert.Contains(t, string(goodMD), "Mutation score: the vetted suite kills")
	assert.Nil(t, buggy.Summary.Vet.Mutants, "a failing patch is not mutated")
	assert.Empty(t, good.Summary.Vet.Differences, "a consensus implementation answers as the consensus")
	assert.Equal(t, buggy.Summary.Vetted, good.Summary.Vetted, "the patch under review does not change what is vetted")

	// The run's own report is as the run wrote it: no patch, the run's wall time.
	afterMD, err := os.ReadFile(run.Report)
	require.NoError(t, err)
	assert.Equal(t, string(runMD), string(afterMD), "bot vet leaves the run's report.md alone")
	assert.NotContains(t, string(afterMD), "The patch under review")
	afterJSON, err := os.ReadFile(run.JSON)
	require.NoError(t, err)
	assert.Equal(t, string(runJSON), string(afterJSON), "and its summary.json")
	// The vet report counts the run's work and its own vetting, not the other vetting's.
	assert.Greater(t, good.Summary.WallSeconds, run.Summary.WallSeconds)
	assert.Equal(t, run.Summary.Invocations+1, good.Summary.Invocations)
}

// TestThePatchUnderReviewReachesNoAgent vets a patch carrying a canary with live agents
// (the model faked over HTTP): no request to the model ever holds it.
func TestThePatchUnderReviewReachesNoAgent(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply(population)
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	patchDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(patchDir, "go.mod"), []byte("module example.com/calc\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(patchDir, "calc.go"),
		[]byte("package calc\n\n// CANARY-PATCH\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b + 1 }\n"), 0o644))
	patch, err := gitstate.ReadDir(patchDir)
	require.NoError(t, err)
	out, err := session.RunLive(context.Background(), session.Options{
		Spec: writeSpec(t), Repo: calcRepo(t), Client: client, StateDir: t.TempDir(), BuildCache: buildCache, Patch: patch,
		ResultCache: sharedVerdicts(),
	})
	require.NoError(t, err)
	require.NotNil(t, out.Summary.Vet)
	assert.Equal(t, vet.Failure, out.Summary.Vet.Conclusion, "the patch is off by one")
	for _, r := range srv.Requests() {
		assert.NotContains(t, string(r.Body), "CANARY-PATCH", "request %d holds the patch", r.Index)
	}
	assert.NotEmpty(t, srv.Requests())
}
