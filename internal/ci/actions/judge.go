// Package actions is the `actions` judge backend (docs/actions.md): it classifies a
// batch of jobs on GitHub Actions runners of the private workshop repository. One Run
// call is one batch and one workflow dispatch of dixit-classify.yml: every distinct coder
// tree becomes one matrix job, and each job runs every test of the batch with `bot
// classify`, the local judge. The verdicts come back as one results.json artifact per
// job, read with classify.ReadResults and mapped back to the jobs in order.
//
// A run or job that GitHub cancelled, could not start, timed out, or that failed
// without a valid results.json (or with results.json's `error` set) is infrastructure,
// never a test failure: the trees without verdicts are dispatched again, a bounded
// number of times, and after that Run returns an error (a judge failure).
package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// WorkflowFile is the workflow the judge dispatches, as GitHub names it in the API.
const WorkflowFile = "dixit-classify.yml"

// Config holds the judge's timing and limits; zero fields take the defaults.
type Config struct {
	// PollInterval is the first wait between two looks at a run's status; it grows by
	// half each time up to MaxPollInterval. The workflow_run webhook (Notify) usually
	// ends the wait first. Default 15s, max 2m.
	PollInterval    time.Duration
	MaxPollInterval time.Duration
	// FindTimeout bounds the search for the run of a dispatch that returned no run id
	// (default 3m).
	FindTimeout time.Duration
	// RunTimeout bounds the wait for one run to complete (default 90m: the workflow's
	// jobs stop at 30m, plus time in the queue).
	RunTimeout time.Duration
	// Retries is how many times trees without a verdict are dispatched again after an
	// infrastructure failure (default 2), waiting RetryBackoff, then twice that, ...
	// (default 30s).
	Retries      int
	RetryBackoff time.Duration
	// MaxArtifactSize caps an artifact's zip (default 8 MiB); results.json inside is
	// capped at classify.MaxResultsSize.
	MaxArtifactSize int64
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.PollInterval, 15*time.Second)
	def(&c.MaxPollInterval, 2*time.Minute)
	def(&c.FindTimeout, 3*time.Minute)
	def(&c.RunTimeout, 90*time.Minute)
	def(&c.RetryBackoff, 30*time.Second)
	if c.MaxPollInterval < c.PollInterval {
		c.MaxPollInterval = c.PollInterval
	}
	if c.Retries < 0 {
		c.Retries = 0
	} else if c.Retries == 0 {
		c.Retries = 2
	}
	if c.MaxArtifactSize <= 0 {
		c.MaxArtifactSize = 8 << 20
	}
	return c
}

// NoRetries is the Config.Retries value that disables retries (0 means the default).
const NoRetries = -1

// Options builds a Judge for one Dixit run.
type Options struct {
	// Client is an installation client of the App (go-github), with access to the
	// workshop repository.
	Client *github.Client
	// Owner and Repo name the private workshop repository; GitURL is its clone URL
	// (https://github.com/owner/repo.git).
	Owner, Repo, GitURL string
	// Token returns a current installation token, for git over HTTPS.
	Token func(ctx context.Context) (string, error)
	// Branch is the workshop's default branch, which holds the workflow; "" asks
	// GitHub once.
	Branch string
	// Run is the Dixit run id; RunID in batch.json and the run name.
	Run string
	// Contract is the dixit.yml `test:` section as JSON (batch.json's contract), for
	// example {"preset": "go", "timeout": "30s"}.
	Contract json.RawMessage
	// BotVersion is the version of github.com/dixit-bot/dixit the runners install
	// (the App's own: a tag, or a commit).
	BotVersion string
	// GitDir is a bare repository where the judge commits trees and batches before
	// pushing them; it persists between batches so pushes send only new objects.
	// "" uses a temporary one, removed by Close.
	GitDir string
	// HTTPClient downloads artifacts from the blob host GitHub redirects to. It must
	// not add GitHub credentials; nil: a plain client with a 5-minute timeout.
	HTTPClient *http.Client
	// Hub, when set, delivers workflow_run webhooks to this judge (Hub.Notify).
	Hub *Hub
	// EnsureWorkflow: before the first dispatch, check that the default branch holds
	// the current template and, if not, push it (InstallWorkflow; on GitHub that needs
	// the App's optional `workflows: write` permission).
	EnsureWorkflow bool
	Config         Config
	Logger         *slog.Logger
}

// Judge is the actions backend; it implements ci.Judge. Run calls may overlap.
type Judge struct {
	o       Options
	cfg     Config
	log     *slog.Logger
	ws      *gitstate.Workshop
	tempDir string
	blob    *http.Client

	wfMu      sync.Mutex // guards branch and wfChecked
	branch    string
	wfChecked bool

	mu      sync.Mutex
	pushed  map[string]pushedTree // by ci.Tree hash: in the workshop already
	seq     int
	notes   map[int64]runNote // workflow_run webhooks, by run id
	wake    map[int64]chan struct{}
	stats   Stats
	batches []BatchStats
}

type runNote struct{ status, conclusion string }

// Stats counts the judge's work.
type Stats struct {
	Batches    int     `json:"batches"`     // Run calls that dispatched
	Dispatches int     `json:"dispatches"`  // workflow dispatches, retries included
	Retries    int     `json:"retries"`     // dispatches repeated after an infrastructure failure
	Jobs       int     `json:"jobs"`        // matrix jobs that ran (one per tree and dispatch)
	Minutes    int     `json:"minutes"`     // Actions minutes as GitHub bills them: each job rounded up
	JobSeconds float64 `json:"job_seconds"` // the jobs' exact run time
	Verdicts   int     `json:"verdicts"`    // verdicts returned
}

// BatchStats is one Run call.
type BatchStats struct {
	Batch      string   `json:"batch"`       // the first dispatch's batch id
	Runs       []int64  `json:"runs"`        // workflow run ids, one per dispatch
	Trees      int      `json:"trees"`       // matrix jobs of the first dispatch
	Tests      int      `json:"tests"`       // tests in the batch
	Minutes    int      `json:"minutes"`     // billed minutes, all dispatches
	JobSeconds float64  `json:"job_seconds"` // exact job time, all dispatches
	Seconds    float64  `json:"seconds"`     // wall time of the Run call
	Failures   []string `json:"failures,omitempty"`
}

var (
	idPattern      = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$`)
	versionPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$`)
)

// New checks the options and prepares the judge's git repository.
func New(o Options) (*Judge, error) {
	switch {
	case o.Client == nil:
		return nil, errors.New("actions judge: no GitHub client")
	case o.Owner == "" || o.Repo == "" || o.GitURL == "":
		return nil, errors.New("actions judge: the workshop repository (owner, name, clone URL) is required")
	case o.Token == nil:
		return nil, errors.New("actions judge: no token source for git")
	case !idPattern.MatchString(o.Run):
		return nil, fmt.Errorf("actions judge: run id %q: want 1 to 100 letters, digits, '.', '_' and '-'", o.Run)
	case !versionPattern.MatchString(o.BotVersion):
		return nil, fmt.Errorf("actions judge: bot version %q is not a tag or commit the workflow accepts", o.BotVersion)
	case len(o.Contract) == 0:
		return nil, errors.New("actions judge: no test contract")
	}
	if _, err := classify.ContractFromJSON(o.Contract); err != nil {
		return nil, fmt.Errorf("actions judge: %w", err)
	}
	j := &Judge{o: o, cfg: o.Config.withDefaults(), log: o.Logger, blob: o.HTTPClient,
		pushed: map[string]pushedTree{}, notes: map[int64]runNote{}, wake: map[int64]chan struct{}{}}
	if j.log == nil {
		j.log = slog.New(slog.DiscardHandler)
	}
	j.log = j.log.With("judge", "actions", "workshop", o.Owner+"/"+o.Repo, "run", o.Run)
	if j.blob == nil {
		j.blob = &http.Client{Timeout: 5 * time.Minute}
	}
	dir := o.GitDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "dixit-actions-*")
		if err != nil {
			return nil, fmt.Errorf("actions judge: %w", err)
		}
		j.tempDir, dir = tmp, tmp
	}
	ws, err := gitstate.Open(dir)
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("actions judge: %w", err)
	}
	j.ws = ws
	if o.Hub != nil {
		o.Hub.add(j)
	}
	return j, nil
}

// Close forgets the judge's temporary repository and leaves the hub.
func (j *Judge) Close() error {
	if j.o.Hub != nil {
		j.o.Hub.remove(j)
	}
	if j.tempDir != "" {
		return os.RemoveAll(j.tempDir)
	}
	return nil
}

// Stats returns the counters so far.
func (j *Judge) Stats() Stats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stats
}

// Minutes is the Actions minutes billed so far (each job rounded up to a whole minute).
func (j *Judge) Minutes() int { return j.Stats().Minutes }

// Batches returns the figures of each Run call so far, oldest first.
func (j *Judge) Batches() []BatchStats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]BatchStats(nil), j.batches...)
}

// Notify tells the judge what a workflow_run webhook said about a run of the workshop
// (action "completed" comes with status "completed" and the conclusion). It never
// blocks; a run the judge does not wait for is remembered briefly, in case the event
// arrives before the judge has found its run.
func (j *Judge) Notify(runID int64, status, conclusion string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.notes) >= 1024 {
		clear(j.notes)
	}
	j.notes[runID] = runNote{status: status, conclusion: conclusion}
	if ch, ok := j.wake[runID]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Run classifies the jobs: one batch, one dispatch (and retries of what failed).
func (j *Judge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	start := time.Now()
	b, err := j.plan(reruns, jobs)
	if err != nil {
		return nil, fmt.Errorf("actions judge: %w", err)
	}
	if err := j.prepare(ctx); err != nil {
		return nil, err
	}
	st := BatchStats{Trees: len(b.trees), Tests: len(b.tests)}
	defer j.record(&st, start)
	if err := j.classify(ctx, b, &st); err != nil {
		return nil, err
	}
	out := make([]ci.Verdict, len(jobs))
	for i, job := range jobs {
		t := b.byJob[i]
		out[i] = t.verdicts[b.testIndex[job.Test.ID]]
	}
	j.mu.Lock()
	j.stats.Verdicts += len(out)
	j.mu.Unlock()
	return out, nil
}

// record keeps a batch's figures and logs them.
func (j *Judge) record(st *BatchStats, start time.Time) {
	st.Seconds = time.Since(start).Seconds()
	j.mu.Lock()
	j.stats.Batches++
	if len(j.batches) < 10000 {
		j.batches = append(j.batches, *st)
	}
	j.mu.Unlock()
	j.log.Info("actions batch", "batch", st.Batch, "runs", st.Runs, "trees", st.Trees, "tests", st.Tests,
		"minutes", st.Minutes, "seconds", st.Seconds, "failures", len(st.Failures))
}

// classify dispatches the batch's trees until each has its verdicts, again for those an
// infrastructure failure left without, at most Retries times more.
func (j *Judge) classify(ctx context.Context, b *batch, st *BatchStats) error {
	todo := b.trees
	var lastErr error
	for attempt := 0; ; attempt++ {
		res, err := j.attempt(ctx, b, todo, st)
		if err != nil {
			var infra *infraError
			if !errors.As(err, &infra) {
				return fmt.Errorf("actions judge: %w", err)
			}
			// The whole dispatch failed (no run, or it never completed): all again.
			res = nil
			st.Failures = append(st.Failures, err.Error())
			lastErr = err
		}
		left := settle(todo, res, st, &lastErr)
		if len(left) == 0 {
			return nil
		}
		if attempt >= j.cfg.Retries {
			return fmt.Errorf("actions judge: batch %s: %d of %d trees without verdicts after %d dispatches: %w",
				st.Batch, len(left), len(b.trees), attempt+1, lastErr)
		}
		todo = left
		wait := j.cfg.RetryBackoff << attempt
		j.log.Warn("actions batch: retrying after an infrastructure failure", "batch", st.Batch,
			"trees", len(left), "wait", wait, "err", lastErr)
		j.mu.Lock()
		j.stats.Retries++
		j.mu.Unlock()
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("actions judge: %w", err)
		}
	}
}

// settle keeps the verdicts of the trees a dispatch classified and returns those it did
// not, noting each tree's failure in st and lastErr.
func settle(todo []*tree, res map[string]treeResult, st *BatchStats, lastErr *error) []*tree {
	var left []*tree
	for _, t := range todo {
		r, ok := res[t.hash]
		if ok && r.err == nil {
			t.verdicts = r.verdicts
			continue
		}
		if ok {
			st.Failures = append(st.Failures, r.err.Error())
			*lastErr = r.err
		}
		left = append(left, t)
	}
	return left
}

// infraError is a failure of a whole dispatch that a new dispatch may not have.
type infraError struct{ err error }

func (e *infraError) Error() string { return e.err.Error() }
func (e *infraError) Unwrap() error { return e.err }

func infra(format string, args ...any) error { return &infraError{err: fmt.Errorf(format, args...)} }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
