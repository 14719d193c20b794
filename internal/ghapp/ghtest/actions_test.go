package ghtest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testWorkflow = `name: dixit-classify
run-name: dixit-classify ${{ inputs.run_id }} batch ${{ inputs.batch_id }}
on:
  workflow_dispatch:
    inputs:
      run_id: {required: true, type: string}
      batch_id: {required: true, type: string}
      coders: {required: true, type: string}
      reruns: {required: false, type: string, default: "20"}
jobs: {}
`

func dispatchBody(batch string, details bool) map[string]any {
	return map[string]any{"ref": "main", "return_run_details": details, "inputs": map[string]any{
		"run_id": "r1", "batch_id": batch, "coders": `[{"name":"amber","ref":"abc"},{"name":"basil","ref":"def"}]`,
	}}
}

func postDispatch(t *testing.T, c *github.Client, body map[string]any) (int64, *github.Response, error) {
	t.Helper()
	req, err := c.NewRequest("POST", "repos/acme/shop-dixit/actions/workflows/dixit-classify.yml/dispatches", body)
	require.NoError(t, err)
	var out struct {
		ID int64 `json:"workflow_run_id"`
	}
	resp, err := c.Do(context.Background(), req, &out)
	return out.ID, resp, err
}

func TestActionsDispatchRunJobsAndArtifacts(t *testing.T) {
	s := NewServer(t)
	ctx := t.Context()
	s.State.AddRepo("acme", "shop-dixit", true, 1)
	s.State.SetFile("acme", "shop-dixit", "main", ".github/workflows/dixit-classify.yml", testWorkflow)
	c := s.Client(&http.Client{Transport: tokenAuth{"ghs_fake_1_1"}})
	a := s.Actions()
	a.OnDispatch(func(d Dispatch) RunScript {
		if d.Inputs["batch_id"] == "b-2" {
			return RunScript{Conclusion: "success", JobDuration: 61 * time.Second,
				Artifacts: []Artifact{{Name: "dixit-results-amber", Zip: []byte("PK-zip")}, {Name: "old", Expired: true}}}
		}
		return RunScript{}
	})

	id1, resp, err := postDispatch(t, c, dispatchBody("b-1", false))
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Zero(t, id1)
	id2, resp, err := postDispatch(t, c, dispatchBody("b-2", true))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotZero(t, id2)
	ds := a.Dispatches()
	require.Len(t, ds, 2)
	assert.Equal(t, "20", ds[0].Inputs["reruns"], "defaults are filled in")
	assert.Equal(t, "dixit-classify r1 batch b-1", ds[0].Title)

	runs, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "acme", "shop-dixit", "dixit-classify.yml",
		&github.ListWorkflowRunsOptions{Event: "workflow_dispatch", ListOptions: github.ListOptions{PerPage: 1}})
	require.NoError(t, err)
	require.Equal(t, 2, runs.GetTotalCount())
	require.Len(t, runs.WorkflowRuns, 1)
	assert.Equal(t, id2, runs.WorkflowRuns[0].GetID(), "newest first")
	assert.Equal(t, "dixit-classify r1 batch b-2", runs.WorkflowRuns[0].GetDisplayTitle())
	runs, _, err = c.Actions.ListWorkflowRunsByFileName(ctx, "acme", "shop-dixit", "dixit-classify.yml",
		&github.ListWorkflowRunsOptions{Event: "push"})
	require.NoError(t, err)
	assert.Zero(t, runs.GetTotalCount())

	run, _, err := c.Actions.GetWorkflowRunByID(ctx, "acme", "shop-dixit", ds[0].RunID)
	require.NoError(t, err)
	assert.Equal(t, "in_progress", run.GetStatus())
	a.Finish(ds[0].RunID, "cancelled", nil)
	run, _, err = c.Actions.GetWorkflowRunByID(ctx, "acme", "shop-dixit", ds[0].RunID)
	require.NoError(t, err)
	assert.Equal(t, "completed", run.GetStatus())
	assert.Equal(t, "cancelled", run.GetConclusion())

	jobs, _, err := c.Actions.ListWorkflowJobs(ctx, "acme", "shop-dixit", id2, &github.ListWorkflowJobsOptions{Filter: "latest"})
	require.NoError(t, err)
	require.Len(t, jobs.Jobs, 2)
	assert.Equal(t, "classify amber", jobs.Jobs[0].GetName())
	assert.Equal(t, 61*time.Second, jobs.Jobs[0].GetCompletedAt().Sub(jobs.Jobs[0].GetStartedAt().Time))

	arts, _, err := c.Actions.ListWorkflowRunArtifacts(ctx, "acme", "shop-dixit", id2, nil)
	require.NoError(t, err)
	require.Len(t, arts.Artifacts, 2)
	u, _, err := c.Actions.DownloadArtifact(ctx, "acme", "shop-dixit", arts.Artifacts[0].GetID(), 0)
	require.NoError(t, err)
	assert.NotContains(t, u.String(), s.URL, "blobs live on another host")
	got, err := http.Get(u.String())
	require.NoError(t, err)
	body, _ := io.ReadAll(got.Body)
	got.Body.Close()
	assert.Equal(t, "PK-zip", string(body))

	// A client that forwards its token to the blob host is refused.
	req, _ := http.NewRequest("GET", u.String(), nil)
	req.Header.Set("Authorization", "token ghs_fake_1_1")
	got, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	got.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, got.StatusCode)
	n, leaked := a.BlobDownloads()
	assert.Equal(t, 2, n)
	assert.Equal(t, 1, leaked)

	_, _, err = c.Actions.DownloadArtifact(ctx, "acme", "shop-dixit", arts.Artifacts[1].GetID(), 0)
	require.Error(t, err, "an expired artifact is gone")

	s.Inject(ActionsForbidden())
	_, _, err = postDispatch(t, c, dispatchBody("b-4", true))
	assert.Equal(t, http.StatusForbidden, status(t, err))
}

func TestActionsRunThatNeverAppears(t *testing.T) {
	s := NewServer(t)
	s.State.SetFile("acme", "shop-dixit", "main", ".github/workflows/dixit-classify.yml", testWorkflow)
	c := s.Client(&http.Client{Transport: tokenAuth{"ghs_fake_1_1"}})
	s.Actions().OnDispatch(func(Dispatch) RunScript { return RunScript{NoRun: true} })
	id, resp, err := postDispatch(t, c, dispatchBody("b-1", true))
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Zero(t, id)
	runs, _, err := c.Actions.ListWorkflowRunsByFileName(t.Context(), "acme", "shop-dixit", "dixit-classify.yml", nil)
	require.NoError(t, err)
	assert.Zero(t, runs.GetTotalCount())
}

func TestCreatedFilter(t *testing.T) {
	at := "2026-11-22T15:00:00Z"
	assert.True(t, createdMatches(at, ">=2026-11-22T15:00:00Z"))
	assert.False(t, createdMatches(at, ">2026-11-22T15:00:00Z"))
	assert.True(t, createdMatches(at, "<2026-11-22T16:00:00Z"))
	assert.True(t, createdMatches(at, "2026-11-22T14:00:00Z..2026-11-22T16:00:00Z"))
	assert.True(t, createdMatches(at, at))
	assert.False(t, createdMatches(at, "yesterday"))
}
