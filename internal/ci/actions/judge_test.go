package actions

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/actions/actionstest"
	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
)

const (
	owner    = "acme"
	workshop = "shop-dixit"
	ghToken  = "ghs_fake_1_1"
)

// A shell contract: no toolchain, no build, fast. Each test is a script run in the tree.
var contractJSON = json.RawMessage(`{"path": "t_{id}.sh", "run": "sh ./t_{id}.sh", "timeout": "5s"}`)

type tokenAuth struct{ token string }

func (a tokenAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

type env struct {
	gh     *ghtest.Server
	git    *gittest.Server
	url    string
	client *github.Client
	hub    *Hub
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{gh: ghtest.NewServer(t), git: gittest.NewServer(t), hub: NewHub()}
	e.gh.State.AddRepo(owner, workshop, true, 1)
	e.gh.State.SetFile(owner, workshop, "main", classify.WorkflowPath, string(classify.Workflow))
	e.url = e.git.EmptyRepo(workshop)
	e.client = e.gh.Client(&http.Client{Transport: tokenAuth{ghToken}})
	return e
}

func fastConfig() Config {
	return Config{PollInterval: 20 * time.Millisecond, MaxPollInterval: 50 * time.Millisecond,
		FindTimeout: 2 * time.Second, RunTimeout: time.Minute, RetryBackoff: 10 * time.Millisecond}
}

func (e *env) judge(t *testing.T, cfg Config, edit func(*Options)) *Judge {
	t.Helper()
	o := Options{
		Client: e.client, Owner: owner, Repo: workshop, GitURL: e.url,
		Token: func(context.Context) (string, error) { return e.git.Token, nil },
		Run:   "shop-7", Contract: contractJSON, BotVersion: "v0.3.0", Config: cfg,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if edit != nil {
		edit(&o)
	}
	j, err := New(o)
	require.NoError(t, err)
	t.Cleanup(func() { j.Close() })
	return j
}

// dirTree is a coder's tree from files, hashed as git hashes it.
func dirTree(t *testing.T, files map[string]string) ci.Tree {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	tr, err := gitstate.ReadDir(dir)
	require.NoError(t, err)
	return tr
}

// The population: three coders, three tests, and every job of the cross product.
func population(t *testing.T) []ci.Job {
	coders := []struct {
		name string
		tree ci.Tree
	}{
		{"amber", dirTree(t, map[string]string{"impl.txt": "good\n"})},
		{"basil", dirTree(t, map[string]string{"impl.txt": "bad\n"})},
		{"cedar", dirTree(t, map[string]string{"impl.txt": "good\n", "notes.md": "cedar's\n"})},
	}
	tests := []ci.Test{
		{ID: "always", Content: []byte("exit 0\n")},
		{ID: "good_impl", Content: []byte("grep -q good impl.txt\n")},
		{ID: "has_notes", Content: []byte("test -f notes.md || { echo no notes; exit 3; }\n")},
	}
	var jobs []ci.Job
	for _, tc := range tests {
		for _, c := range coders {
			jobs = append(jobs, ci.Job{Coder: c.name, Tree: c.tree, Test: tc})
		}
	}
	return jobs
}

func localVerdicts(t *testing.T, reruns int, jobs []ci.Job) []ci.Verdict {
	t.Helper()
	contract, err := classify.ContractFromJSON(contractJSON)
	require.NoError(t, err)
	l, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer l.Close()
	vs, err := l.Run(t.Context(), reruns, jobs)
	require.NoError(t, err)
	return vs
}

func requireSameVerdicts(t *testing.T, want, got []ci.Verdict) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Outcome, got[i].Outcome, "job %d", i)
		assert.Equal(t, want[i].Runs, got[i].Runs, "job %d", i)
	}
}

// runner acts as the workflow's jobs (actionstest.Run) on what the judge pushed.
func (e *env) runner(t *testing.T, d ghtest.Dispatch) []ghtest.Artifact {
	arts, err := actionstest.Run(context.Background(), d, e.git.Path(workshop), t.TempDir(), actionstest.Caches{})
	require.NoError(t, err)
	return arts
}

func zipOf(t *testing.T, files map[string]string) []byte {
	data, err := actionstest.Zip(files)
	require.NoError(t, err)
	return data
}

// honest makes every dispatch run the runner in the background; notify, if set, is
// told when a run completes (the workflow_run webhook).
func (e *env) honest(t *testing.T, notify func(runID int64)) {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	e.gh.Actions().OnDispatch(func(d ghtest.Dispatch) ghtest.RunScript {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arts := e.runner(t, d)
			e.gh.Actions().Finish(d.RunID, "success", arts)
			if notify != nil {
				notify(d.RunID)
			}
		}()
		return ghtest.RunScript{JobDuration: 61 * time.Second}
	})
}

func countRequests(s *ghtest.Server, method, prefix string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == method && strings.HasPrefix(r.Path, prefix) {
			n++
		}
	}
	return n
}

const dispatchPath = "repos/" + owner + "/" + workshop + "/actions/workflows/" + WorkflowFile + "/dispatches"

func TestVerdictsEqualTheLocalJudgeWhenTheWebhookSaysTheRunIsDone(t *testing.T) {
	e := newEnv(t)
	cfg := fastConfig()
	cfg.PollInterval, cfg.MaxPollInterval = time.Hour, time.Hour // only the webhook can end the wait
	j := e.judge(t, cfg, func(o *Options) { o.Hub = e.hub })
	e.honest(t, func(id int64) { e.hub.Notify(owner, workshop, id, "completed", "success") })
	jobs := population(t)

	got, err := j.Run(t.Context(), 5, jobs)
	require.NoError(t, err)
	requireSameVerdicts(t, localVerdicts(t, 5, jobs), got)
	assert.Equal(t, ci.Fail, got[4].Outcome, "basil fails good_impl")
	assert.Equal(t, ci.Pass, got[8].Outcome, "cedar has notes")

	ds := e.gh.Actions().Dispatches()
	require.Len(t, ds, 1, "one batch, one dispatch")
	d := ds[0]
	assert.Equal(t, "main", d.Ref)
	assert.Equal(t, "shop-7", d.Inputs["run_id"])
	assert.Equal(t, "5", d.Inputs["reruns"])
	assert.Equal(t, "v0.3.0", d.Inputs["bot_version"])
	assert.Equal(t, RunName("shop-7", d.Inputs["batch_id"]), d.Title)
	var coders []struct{ Name, Ref string }
	require.NoError(t, json.Unmarshal([]byte(d.Inputs["coders"]), &coders))
	require.Len(t, coders, 3)
	assert.Equal(t, "amber", coders[0].Name)
	refs := e.git.Refs(workshop)
	assert.Equal(t, d.Inputs["batch_ref"], refs["refs/dixit-classify/shop-7/batches/"+d.Inputs["batch_id"]])
	assert.Equal(t, coders[0].Ref, refs["refs/dixit-classify/shop-7/trees/"+jobs[0].Tree.Hash()])

	st := j.Stats()
	assert.Equal(t, Stats{Batches: 1, Dispatches: 1, Jobs: 3, Minutes: 6, JobSeconds: 183, Verdicts: 9}, st,
		"three jobs of 61s are billed 2 minutes each")
	b := j.Batches()
	require.Len(t, b, 1)
	assert.Equal(t, 6, b[0].Minutes)
	assert.Equal(t, []int64{d.RunID}, b[0].Runs)
	assert.Equal(t, 1, countRequests(e.gh, "GET", "repos/acme/shop-dixit/actions/runs/"+strconv.FormatInt(d.RunID, 10)+"/jobs"))
	assert.LessOrEqual(t, countRequests(e.gh, "GET", "repos/acme/shop-dixit/actions/runs/"+strconv.FormatInt(d.RunID, 10)+"/"), 2)
	assert.Zero(t, countRequests(e.gh, "GET", "repos/acme/shop-dixit/actions/workflows/"), "the dispatch gave the run id")
	_, leaked := e.gh.Actions().BlobDownloads()
	assert.Zero(t, leaked)

	// A second batch with the same trees pushes only the new batch commit.
	got, err = j.Run(t.Context(), 5, jobs[:3])
	require.NoError(t, err)
	requireSameVerdicts(t, localVerdicts(t, 5, jobs[:3]), got)
	t.Logf("requests to GitHub for two batches: %d", len(e.gh.Requests()))
}

func TestVerdictsByPollingAndFindingTheRunByName(t *testing.T) {
	e := newEnv(t)
	e.gh.Actions().WithoutRunDetails() // as before GitHub returned run ids
	j := e.judge(t, fastConfig(), nil)
	e.honest(t, nil)
	jobs := population(t)
	got, err := j.Run(t.Context(), 3, jobs)
	require.NoError(t, err)
	requireSameVerdicts(t, localVerdicts(t, 3, jobs), got)
	assert.Positive(t, countRequests(e.gh, "GET", "repos/acme/shop-dixit/actions/workflows/"+WorkflowFile+"/runs"))
}

func TestARunThatNeverAppearsIsAnErrorAfterTheFindTimeout(t *testing.T) {
	e := newEnv(t)
	e.gh.Actions().OnDispatch(func(ghtest.Dispatch) ghtest.RunScript { return ghtest.RunScript{NoRun: true} })
	cfg := fastConfig()
	cfg.FindTimeout, cfg.Retries = 300*time.Millisecond, NoRetries
	j := e.judge(t, cfg, nil)
	start := time.Now()
	_, err := j.Run(t.Context(), 2, population(t))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no workflow run named \"dixit-classify shop-7 batch b0001-")
	assert.Contains(t, err.Error(), "within 300ms")
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Len(t, e.gh.Actions().Dispatches(), 1)
}

func TestACancelledRunIsRetriedAndNeverCountsAsAFailure(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	e.gh.Actions().OnDispatch(func(d ghtest.Dispatch) ghtest.RunScript {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			return ghtest.RunScript{Conclusion: "cancelled", JobDuration: 30 * time.Second}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.gh.Actions().Finish(d.RunID, "success", e.runner(t, d))
		}()
		return ghtest.RunScript{}
	})
	j := e.judge(t, fastConfig(), nil)
	jobs := population(t)
	got, err := j.Run(t.Context(), 2, jobs)
	require.NoError(t, err)
	requireSameVerdicts(t, localVerdicts(t, 2, jobs), got)
	ds := e.gh.Actions().Dispatches()
	require.Len(t, ds, 2)
	assert.NotEqual(t, ds[0].Inputs["batch_id"], ds[1].Inputs["batch_id"], "a fresh batch id per dispatch")
	st := j.Stats()
	assert.Equal(t, 1, st.Retries)
	assert.Equal(t, 2, st.Dispatches)
	assert.Equal(t, 3+3, st.Minutes, "the cancelled run's minutes are billed too")
	b := j.Batches()
	require.Len(t, b, 1)
	require.Len(t, b[0].Failures, 1)
	assert.Contains(t, b[0].Failures[0], `ended "cancelled"`)
}

func TestOnlyTheTreeWhoseJudgeFailedIsDispatchedAgain(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	e.gh.Actions().OnDispatch(func(d ghtest.Dispatch) ghtest.RunScript {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			arts := e.runner(t, d)
			if first { // basil's runner could not start its sandbox
				broken := classify.Results{Schema: classify.Schema, Run: d.Inputs["run_id"], Batch: d.Inputs["batch_id"],
					Coder: "basil", Reruns: 2, Error: "judge: bwrap: setting up uid map: Permission denied", Tests: []classify.TestResult{}}
				data, err := broken.Marshal()
				require.NoError(t, err)
				arts[1].Zip = zipOf(t, map[string]string{"results.json": string(data)})
				// and cedar's job uploaded nothing
				arts = arts[:2]
			}
			e.gh.Actions().Finish(d.RunID, "failure", arts)
		}()
		return ghtest.RunScript{}
	})
	j := e.judge(t, fastConfig(), nil)
	jobs := population(t)
	got, err := j.Run(t.Context(), 2, jobs)
	require.NoError(t, err)
	requireSameVerdicts(t, localVerdicts(t, 2, jobs), got)
	ds := e.gh.Actions().Dispatches()
	require.Len(t, ds, 2)
	var coders []struct{ Name, Ref string }
	require.NoError(t, json.Unmarshal([]byte(ds[1].Inputs["coders"]), &coders))
	require.Len(t, coders, 2)
	assert.Equal(t, "basil", coders[0].Name)
	assert.Equal(t, "cedar", coders[1].Name)
}

func TestAfterTheRetriesAnInfrastructureFailureIsAJudgeError(t *testing.T) {
	e := newEnv(t)
	e.gh.Actions().OnDispatch(func(ghtest.Dispatch) ghtest.RunScript { return ghtest.RunScript{Conclusion: "startup_failure"} })
	cfg := fastConfig()
	cfg.Retries = 2
	j := e.judge(t, cfg, nil)
	_, err := j.Run(t.Context(), 2, population(t))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "3 of 3 trees without verdicts after 3 dispatches")
	assert.Contains(t, err.Error(), "startup_failure")
	assert.Len(t, e.gh.Actions().Dispatches(), 3)
}

// refusedArtifact scripts one dispatch whose amber artifact is replaced by the test's.
func refusedArtifact(t *testing.T, cfg Config, edit func(d ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact) error {
	t.Helper()
	e := newEnv(t)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	e.gh.Actions().OnDispatch(func(d ghtest.Dispatch) ghtest.RunScript {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.gh.Actions().Finish(d.RunID, "success", edit(d, e.runner(t, d)))
		}()
		return ghtest.RunScript{}
	})
	j := e.judge(t, cfg, nil)
	_, err := j.Run(t.Context(), 2, population(t))
	require.Error(t, err)
	require.ErrorIs(t, err, ErrRefused)
	assert.Len(t, e.gh.Actions().Dispatches(), 1, "a refused artifact is not paid for again")
	return err
}

func TestBadArtifactsAreRefused(t *testing.T) {
	t.Run("oversized", func(t *testing.T) {
		cfg := fastConfig()
		cfg.MaxArtifactSize = 4096
		err := refusedArtifact(t, cfg, func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = append(arts[0].Zip, make([]byte, 5000)...)
			return arts
		})
		assert.Contains(t, err.Error(), "the cap is 4096")
	})
	t.Run("not a zip", func(t *testing.T) {
		err := refusedArtifact(t, fastConfig(), func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = []byte("{\"schema\": \"dixit.classify/v1\"}")
			return arts
		})
		assert.Contains(t, err.Error(), "not a zip archive")
	})
	t.Run("zip slip", func(t *testing.T) {
		err := refusedArtifact(t, fastConfig(), func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = zipOf(t, map[string]string{"../../results.json": "{}"})
			return arts
		})
		assert.Contains(t, err.Error(), "climbs out")
	})
	t.Run("zip bomb", func(t *testing.T) {
		err := refusedArtifact(t, fastConfig(), func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = zipOf(t, map[string]string{"results.json": strings.Repeat(" ", classify.MaxResultsSize+1)})
			return arts
		})
		assert.Contains(t, err.Error(), "uncompressed")
	})
	t.Run("malformed results.json", func(t *testing.T) {
		err := refusedArtifact(t, fastConfig(), func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = zipOf(t, map[string]string{"results.json": `{"schema": "dixit.classify/v1", "surprise": 1}`})
			return arts
		})
		assert.Contains(t, err.Error(), "results.json")
	})
	t.Run("another batch", func(t *testing.T) {
		err := refusedArtifact(t, fastConfig(), func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = rewrite(t, arts[0].Zip, func(r *classify.Results) { r.Batch = "b0099-0000000000" })
			return arts
		})
		assert.Contains(t, err.Error(), `batch "b0099-0000000000"`)
	})
	t.Run("another tree", func(t *testing.T) {
		err := refusedArtifact(t, fastConfig(), func(_ ghtest.Dispatch, arts []ghtest.Artifact) []ghtest.Artifact {
			arts[0].Zip = rewrite(t, arts[0].Zip, func(r *classify.Results) { r.Tree = strings.Repeat("ab", 20) })
			return arts
		})
		assert.Contains(t, err.Error(), "judged tree abab")
	})
}

// rewrite edits the results.json inside an artifact's zip.
func rewrite(t *testing.T, zipped []byte, edit func(*classify.Results)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	require.NoError(t, err)
	rc, err := zr.File[0].Open()
	require.NoError(t, err)
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	res, err := classify.ParseResults(data)
	require.NoError(t, err)
	edit(&res)
	out, err := res.Marshal()
	require.NoError(t, err)
	return zipOf(t, map[string]string{"results.json": string(out)})
}

func TestA403OnDispatchNamesThePermissionWithoutRetrying(t *testing.T) {
	e := newEnv(t)
	f := ghtest.ActionsForbidden()
	f.Path, f.Times = dispatchPath, 100
	e.gh.Inject(f)
	j := e.judge(t, fastConfig(), nil)
	_, err := j.Run(t.Context(), 2, population(t))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "`actions: write`")
	assert.Contains(t, err.Error(), "Resource not accessible by integration")
	assert.Equal(t, 1, countRequests(e.gh, "POST", dispatchPath), "no retry storm")
	assert.Equal(t, 1, j.Stats().Dispatches)
}

func TestCancellingTheContextStopsTheWaitPromptly(t *testing.T) {
	e := newEnv(t)
	e.gh.Actions().OnDispatch(func(ghtest.Dispatch) ghtest.RunScript { return ghtest.RunScript{} }) // runs forever
	cfg := fastConfig()
	cfg.PollInterval, cfg.MaxPollInterval = time.Hour, time.Hour
	j := e.judge(t, cfg, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(e.gh.Actions().Dispatches()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := j.Run(ctx, 2, population(t))
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestInstallWorkflowPushesTheTemplateOnce(t *testing.T) {
	git := gittest.NewServer(t)
	ctx := t.Context()

	empty := git.EmptyRepo("empty-dixit")
	changed, err := InstallWorkflow(ctx, empty, "main", git.Token)
	require.NoError(t, err)
	assert.True(t, changed)
	tree, err := gitstate.ReadRevision(git.Path("empty-dixit"), "refs/heads/main")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, tree.WriteTo(dir))
	got, err := os.ReadFile(filepath.Join(dir, classify.WorkflowPath))
	require.NoError(t, err)
	assert.Equal(t, classify.Workflow, got)
	changed, err = InstallWorkflow(ctx, empty, "main", git.Token)
	require.NoError(t, err)
	assert.False(t, changed, "already current")

	url := git.Repo("kept-dixit", "main", map[string]string{"README.md": "hi\n", ".github/workflows/other.yml": "x: 1\n",
		classify.WorkflowPath: "old\n"})
	before := git.Refs("kept-dixit")["refs/heads/main"]
	changed, err = InstallWorkflow(ctx, url, "main", git.Token)
	require.NoError(t, err)
	assert.True(t, changed)
	tree, err = gitstate.ReadRevision(git.Path("kept-dixit"), "refs/heads/main")
	require.NoError(t, err)
	dir = t.TempDir()
	require.NoError(t, tree.WriteTo(dir))
	for p, want := range map[string]string{"README.md": "hi\n", ".github/workflows/other.yml": "x: 1\n", classify.WorkflowPath: string(classify.Workflow)} {
		got, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		assert.Equal(t, want, string(got), p)
	}
	assert.NotEqual(t, before, git.Refs("kept-dixit")["refs/heads/main"])
}

func TestEnsureWorkflowInstallsAMissingTemplateBeforeTheFirstDispatch(t *testing.T) {
	e := newEnv(t)
	e.gh.State.SetFile(owner, workshop, "main", classify.WorkflowPath, "name: old\n")
	j := e.judge(t, fastConfig(), func(o *Options) { o.EnsureWorkflow = true })
	require.NoError(t, j.prepare(t.Context()))
	tree, err := gitstate.ReadRevision(e.git.Path(workshop), "refs/heads/main")
	require.NoError(t, err, "the template was pushed to the default branch")
	dir := t.TempDir()
	require.NoError(t, tree.WriteTo(dir))
	got, err := os.ReadFile(filepath.Join(dir, classify.WorkflowPath))
	require.NoError(t, err)
	assert.Equal(t, classify.Workflow, got)

	// GitHub now serves the pushed file (the fake's contents API does not see git).
	e.gh.State.SetFile(owner, workshop, "main", classify.WorkflowPath, string(classify.Workflow))
	e.honest(t, nil)
	jobs := population(t)[:2]
	vs, err := j.Run(t.Context(), 1, jobs)
	require.NoError(t, err)
	requireSameVerdicts(t, localVerdicts(t, 1, jobs), vs)
	assert.Equal(t, 1, countRequests(e.gh, "GET", "repos/acme/shop-dixit/contents/"), "checked once")
	n := 0
	for _, r := range e.gh.Requests() {
		if r.Method == "GET" && r.Path == "repos/acme/shop-dixit" {
			n++
		}
	}
	assert.Equal(t, 1, n, "the default branch, asked once")
}

// preparedJSON is contractJSON with a prepare that reads the tree's deps.txt: a tree
// naming a dependency that cannot be had is not prepared.
var preparedJSON = json.RawMessage(`{"path": "t_{id}.sh", "run": "sh ./t_{id}.sh", "timeout": "5s",
	"prepare": "grep -qx ok deps.txt || { echo 'no such dependency:' $(cat deps.txt); exit 1; }", "manifests": ["deps.txt"]}`)

func TestOneCodersFailedPrepareCostsOnlyThatCoder(t *testing.T) {
	e := newEnv(t)
	e.honest(t, nil)
	j := e.judge(t, fastConfig(), func(o *Options) { o.Contract = preparedJSON })
	test := ci.Test{ID: "good_impl", Content: []byte("grep -q good impl.txt\n")}
	jobs := []ci.Job{
		{Coder: "amber", Tree: dirTree(t, map[string]string{"deps.txt": "ok\n", "impl.txt": "good\n"}), Test: test},
		{Coder: "basil", Tree: dirTree(t, map[string]string{"deps.txt": "left-pad\n", "impl.txt": "good\n"}), Test: test},
		{Coder: "cedar", Tree: dirTree(t, map[string]string{"deps.txt": "ok\n", "impl.txt": "bad\n"}), Test: test},
	}
	got, err := j.Run(t.Context(), 2, jobs)
	require.NoError(t, err, "one coder that cannot be prepared is that coder's verdict, not a judge failure")
	require.Len(t, got, 3)
	assert.Equal(t, ci.Pass, got[0].Outcome, got[0].Output)
	assert.Equal(t, ci.PrepareFailed, got[1].Outcome, got[1].Output)
	assert.Contains(t, got[1].Output, "no such dependency: left-pad", "the verdict carries the prepare's output")
	assert.Zero(t, got[1].Runs)
	assert.Equal(t, ci.Fail, got[2].Outcome, got[2].Output)
	assert.Len(t, e.gh.Actions().Dispatches(), 1, "a failed prepare is a verdict: nothing is dispatched again")
}
