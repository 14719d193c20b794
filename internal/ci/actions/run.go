package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/ci"
)

// treeResult is what one dispatch gave for one tree: verdicts, or why not (err is an
// infrastructure failure: dispatch the tree again).
type treeResult struct {
	verdicts []ci.Verdict
	err      error
}

// attempt is one dispatch of the trees todo. An *infraError means the dispatch as a
// whole failed and may be retried; any other error ends the batch.
func (j *Judge) attempt(ctx context.Context, b *batch, todo []*tree, st *BatchStats) (map[string]treeResult, error) {
	batchID := j.newBatchID()
	if st.Batch == "" {
		st.Batch = batchID
	}
	log := j.log.With("batch", batchID)
	batchCommit, err := j.push(ctx, b, todo, batchID)
	if err != nil {
		return nil, err
	}
	since := time.Now().Add(-time.Minute) // the server's clock may be behind ours
	runID, err := j.dispatch(ctx, b, todo, batchID, batchCommit)
	if err != nil {
		return nil, err
	}
	if runID == 0 {
		if runID, err = j.find(ctx, batchID, since); err != nil {
			return nil, err
		}
	}
	st.Runs = append(st.Runs, runID)
	log = log.With("workflow_run", runID)
	log.Info("actions batch dispatched", "trees", len(todo), "tests", len(b.tests))
	conclusion, err := j.wait(ctx, runID)
	if err != nil {
		return nil, err
	}
	minutes, seconds, jobs, err := j.minutes(ctx, runID)
	if err != nil {
		log.Warn("actions minutes of a run unknown", "err", err)
	}
	st.Minutes += minutes
	st.JobSeconds += seconds
	j.mu.Lock()
	j.stats.Minutes += minutes
	j.stats.JobSeconds += seconds
	j.stats.Jobs += jobs
	j.mu.Unlock()
	log.Info("actions run completed", "conclusion", conclusion, "minutes", minutes)
	switch conclusion {
	case "cancelled", "startup_failure", "timed_out", "stale", "skipped", "action_required":
		// Nothing of such a run counts, whatever it left behind.
		return nil, infra("workflow run %d of batch %s ended %q", runID, batchID, conclusion)
	}
	return j.collect(ctx, b, todo, endedRun{batchID: batchID, runID: runID, conclusion: conclusion})
}

// dispatch starts the workflow. It asks GitHub for the run id (return_run_details);
// 0 means GitHub did not say (a 204), and the run must be found by its name.
func (j *Judge) dispatch(ctx context.Context, b *batch, todo []*tree, batchID, batchCommit string) (int64, error) {
	body, err := j.dispatchBody(b, todo, batchID, batchCommit)
	if err != nil {
		return 0, err
	}
	u := fmt.Sprintf("repos/%s/%s/actions/workflows/%s/dispatches", j.o.Owner, j.o.Repo, WorkflowFile)
	req, err := j.o.Client.NewRequest(http.MethodPost, u, body)
	if err != nil {
		return 0, err
	}
	var out struct {
		RunID int64 `json:"workflow_run_id"`
	}
	j.mu.Lock()
	j.stats.Dispatches++
	j.mu.Unlock()
	resp, err := j.o.Client.Do(ctx, req, &out)
	if err == nil {
		if resp.StatusCode == http.StatusOK && out.RunID == 0 {
			return 0, infra("dispatch of %s in %s/%s: 200 without a workflow_run_id", WorkflowFile, j.o.Owner, j.o.Repo)
		}
		return out.RunID, nil
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return 0, j.dispatchFailed(err)
}

// dispatchBody is the dispatch's request: the workshop's branch and the workflow's
// inputs, the trees to classify among them.
func (j *Judge) dispatchBody(b *batch, todo []*tree, batchID, batchCommit string) (map[string]any, error) {
	type coder struct {
		Name string `json:"name"`
		Ref  string `json:"ref"`
	}
	coders := make([]coder, len(todo))
	for i, t := range todo {
		coders[i] = coder{Name: t.name, Ref: t.commit}
	}
	codersJSON, err := json.Marshal(coders)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"ref":                j.branch,
		"return_run_details": true,
		"inputs": map[string]string{
			"run_id":      j.o.Run,
			"batch_id":    batchID,
			"batch_ref":   batchCommit,
			"coders":      string(codersJSON),
			"reruns":      fmt.Sprint(b.reruns),
			"bot_version": j.o.BotVersion,
		},
	}, nil
}

// dispatchFailed says what a failed dispatch means: what to change in the workshop's
// settings or workflow, or an infrastructure failure a new dispatch may not have.
func (j *Judge) dispatchFailed(err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		where := fmt.Sprintf("dispatch of %s on branch %s of the workshop %s/%s", WorkflowFile, j.branch, j.o.Owner, j.o.Repo)
		switch code := er.Response.StatusCode; {
		case code == http.StatusForbidden || code == http.StatusUnauthorized:
			return fmt.Errorf("%s: %d %s: the App needs the `actions: write` permission on the workshop repository (accept it in the installation's settings), and GitHub Actions must be enabled there (Settings → Actions → General)",
				where, code, er.Message)
		case code == http.StatusNotFound:
			return fmt.Errorf("%s: 404: the workflow is not on that branch; the App keeps it at %s (see docs/actions.md)",
				where, ".github/workflows/"+WorkflowFile)
		case code == http.StatusUnprocessableEntity:
			return fmt.Errorf("%s: 422 %s: the workflow on the branch does not take the inputs this bot sends (is it the current template?)",
				where, er.Message)
		case code >= 500:
			return infra("%s: %w", where, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	return infra("dispatch of %s in %s/%s: %w", WorkflowFile, j.o.Owner, j.o.Repo, err)
}

// RunName is the name the workflow gives a run (its run-name), by which the judge finds
// the run of a dispatch when GitHub does not return its id.
func RunName(run, batch string) string { return "dixit-classify " + run + " batch " + batch }

// find looks for the run of a dispatch among the workflow's recent runs, by name.
func (j *Judge) find(ctx context.Context, batchID string, since time.Time) (int64, error) {
	want := RunName(j.o.Run, batchID)
	ctx2, cancel := context.WithTimeout(ctx, j.cfg.FindTimeout)
	defer cancel()
	interval := min(j.cfg.PollInterval, 5*time.Second)
	for {
		id, err := j.findOnce(ctx2, want, since)
		if id != 0 {
			return id, nil
		}
		if err != nil && ctx2.Err() == nil {
			j.log.Warn("listing workflow runs", "err", err)
		}
		if err := sleep(ctx2, interval); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, infra("no workflow run named %q appeared in %s/%s within %s of its dispatch",
				want, j.o.Owner, j.o.Repo, j.cfg.FindTimeout)
		}
		interval = min(interval*3/2, j.cfg.MaxPollInterval)
	}
}

// findOnce reads the newest runs of the workflow's dispatches, back to since. The
// `created` filter would say the same, but GitHub's description types it as a date-time
// while GitHub wants search syntax (>=T): the judge filters on created_at itself.
func (j *Judge) findOnce(ctx context.Context, want string, since time.Time) (int64, error) {
	opts := &github.ListWorkflowRunsOptions{Event: "workflow_dispatch", Branch: j.branch,
		ListOptions: github.ListOptions{PerPage: 50}}
	for page := 1; page <= 5; page++ {
		opts.Page = page
		runs, resp, err := j.o.Client.Actions.ListWorkflowRunsByFileName(ctx, j.o.Owner, j.o.Repo, WorkflowFile, opts)
		if err != nil {
			return 0, err
		}
		older := false
		for _, r := range runs.WorkflowRuns {
			if r.GetDisplayTitle() == want || r.GetName() == want {
				return r.GetID(), nil
			}
			if r.CreatedAt != nil && r.GetCreatedAt().Before(since) {
				older = true
			}
		}
		if older || resp.NextPage == 0 {
			return 0, nil
		}
	}
	return 0, nil
}

// wait returns the conclusion of a run once it has completed: told by Notify (the
// workflow_run webhook) or seen by polling, whichever comes first.
func (j *Judge) wait(ctx context.Context, runID int64) (string, error) {
	ch := make(chan struct{}, 1)
	j.mu.Lock()
	j.wake[runID] = ch
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		delete(j.wake, runID)
		delete(j.notes, runID)
		j.mu.Unlock()
	}()
	deadline := time.NewTimer(j.cfg.RunTimeout)
	defer deadline.Stop()
	interval := j.cfg.PollInterval
	poll := time.NewTimer(0) // look once at once: the run may be over already
	defer poll.Stop()
	for {
		j.mu.Lock()
		note, told := j.notes[runID]
		j.mu.Unlock()
		if told && note.status == "completed" {
			return note.conclusion, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-deadline.C:
			return "", fmt.Errorf("workflow run %d in %s/%s did not complete within %s (it is left running)",
				runID, j.o.Owner, j.o.Repo, j.cfg.RunTimeout)
		case <-ch:
		case <-poll.C:
			run, _, err := j.o.Client.Actions.GetWorkflowRunByID(ctx, j.o.Owner, j.o.Repo, runID)
			switch {
			case err != nil && ctx.Err() != nil:
				return "", ctx.Err()
			case err != nil:
				j.log.Warn("polling a workflow run", "workflow_run", runID, "err", err)
			case run.GetStatus() == "completed":
				return run.GetConclusion(), nil
			}
			poll.Reset(interval)
			interval = min(interval*3/2, j.cfg.MaxPollInterval)
		}
	}
}

// minutes adds up a run's jobs as GitHub bills them: each job's time rounded up to a
// whole minute.
func (j *Judge) minutes(ctx context.Context, runID int64) (minutes int, seconds float64, jobs int, err error) {
	opts := &github.ListWorkflowJobsOptions{Filter: "latest", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		list, resp, err := j.o.Client.Actions.ListWorkflowJobs(ctx, j.o.Owner, j.o.Repo, runID, opts)
		if err != nil {
			return minutes, seconds, jobs, err
		}
		for _, job := range list.Jobs {
			if job.StartedAt == nil || job.CompletedAt == nil {
				continue
			}
			d := job.GetCompletedAt().Sub(job.GetStartedAt().Time)
			if d <= 0 {
				continue
			}
			jobs++
			seconds += d.Seconds()
			minutes += int(math.Ceil(d.Minutes()))
		}
		if resp.NextPage == 0 {
			return minutes, seconds, jobs, nil
		}
		opts.Page = resp.NextPage
	}
}
