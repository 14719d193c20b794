// Package reconcile recovers what the App missed while it was not listening: webhooks
// are lost when the server is down or deploying. Each pass
//
//  1. starts a run for every open issue carrying the label that has no run record, the
//     way a labelled webhook would, and a vetting for every such pull request (those with
//     a record in any state were started, and maybe stopped or finished, by a human:
//     they are left alone);
//  2. asks GitHub once to redeliver every recent webhook delivery that never succeeded
//     and that the webhook intake never accepted.
//
// What it asked for is remembered in a small JSON file so that a restart does not ask
// again.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
)

// Defaults for the zero values of Config.
const (
	DefaultWindow           = 72 * time.Hour // GitHub redelivers deliveries of the past 3 days
	DefaultMaxRedeliveries  = 50
	DefaultMaxDeliveryPages = 10 // of 100 deliveries each
	DefaultInterval         = 10 * time.Minute
)

// attemptTTL is how long an issue started without leaving a record (its settings were
// bad, and it was told so) is not tried again.
const attemptTTL = 30 * 24 * time.Hour

// Config is what a Reconciler needs; AppClient, Clients, Label, HasRun, Start, Seen and
// StateFile are required.
type Config struct {
	AppClient func() (*github.Client, error)                   // as the App (JWT): ghapp.ClientCreator.AppClient
	Clients   app.Clients                                      // as each installation
	Label     string                                           // the label that starts a run
	HasRun    func(app.Issue) (bool, error)                    // whether an issue has a run record, in any state
	Start     func(ctx context.Context, issue app.Issue) error // app.IssuesHandler.StartIssue
	Seen      func(deliveryID string) bool                     // webhook.Server.Seen
	StateFile string                                           // what was asked for already (JSON)

	Window           time.Duration // deliveries older than this are left alone; default DefaultWindow
	MaxRedeliveries  int           // per pass; default DefaultMaxRedeliveries
	MaxDeliveryPages int           // pages of deliveries read per pass; default DefaultMaxDeliveryPages
	Interval         time.Duration // between passes in Run; default DefaultInterval
	Logger           *slog.Logger  // nil: discard
	Now              func() time.Time
}

// Report says what one pass did.
type Report struct {
	Installations int // installations looked at
	Repositories  int // repositories whose labelled issues were listed
	Started       int // issues whose run started
	Declined      int // issues StartIssue commented on instead (bad settings): not tried again
	Redelivered   int // redeliveries asked for
	Errors        int // steps that failed (the pass went on with the others)
}

// Reconciler runs passes; it is safe for concurrent use (passes run one at a time).
type Reconciler struct {
	cfg Config
	log *slog.Logger

	mu  sync.Mutex
	mem *memory
}

// New checks cfg and loads what earlier passes asked for from cfg.StateFile.
func New(cfg Config) (*Reconciler, error) {
	switch {
	case cfg.AppClient == nil || cfg.Clients == nil:
		return nil, errors.New("reconcile: app and installation clients are required")
	case cfg.Label == "":
		return nil, errors.New("reconcile: the label is required")
	case cfg.HasRun == nil || cfg.Start == nil || cfg.Seen == nil:
		return nil, errors.New("reconcile: HasRun, Start and Seen are required")
	case cfg.StateFile == "":
		return nil, errors.New("reconcile: a state file is required")
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.MaxRedeliveries <= 0 {
		cfg.MaxRedeliveries = DefaultMaxRedeliveries
	}
	if cfg.MaxDeliveryPages <= 0 {
		cfg.MaxDeliveryPages = DefaultMaxDeliveryPages
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	mem, err := loadMemory(cfg.StateFile)
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	return &Reconciler{cfg: cfg, log: cfg.Logger, mem: mem}, nil
}

// Run makes a pass at once and then every Interval until ctx ends. A failing pass is
// logged; the next one tries again.
func (r *Reconciler) Run(ctx context.Context) {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		rep, err := r.Pass(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.log.Warn("reconcile: pass had errors", "started", rep.Started, "redelivered", rep.Redelivered, "errors", rep.Errors, "err", err)
		case rep.Started > 0 || rep.Redelivered > 0:
			r.log.Info("reconcile: pass recovered missed work", "started", rep.Started, "redelivered", rep.Redelivered)
		default:
			r.log.Debug("reconcile: pass found nothing missed", "installations", rep.Installations, "repositories", rep.Repositories)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Pass starts the labelled issues and pull requests without a run, then asks for the
// failed deliveries.
// A failing installation, repository, issue or delivery does not stop the others: the
// error returned joins every failure, and the report counts them.
func (r *Reconciler) Pass(ctx context.Context) (Report, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := &pass{r: r}
	r.mem.prune(r.cfg.Now(), r.cfg.Window)
	p.issues(ctx)
	p.deliveries(ctx)
	p.rep.Errors = len(p.errs)
	return p.rep, errors.Join(p.errs...)
}

// pass is the state of one Pass.
type pass struct {
	r    *Reconciler
	rep  Report
	errs []error
}

func (p *pass) fail(err error) {
	p.errs = append(p.errs, err)
	p.r.log.Warn("reconcile: step failed", "err", err)
}

// remember saves the state file after a change; a failure is reported, and the change
// is still remembered in memory.
func (p *pass) remember() {
	if err := p.r.mem.save(p.r.cfg.StateFile); err != nil {
		p.fail(err)
	}
}

func (p *pass) issues(ctx context.Context) {
	gh, err := p.r.cfg.AppClient()
	if err != nil {
		p.fail(fmt.Errorf("app client: %w", err))
		return
	}
	installs, err := installations(ctx, gh)
	if err != nil {
		p.fail(err)
		return
	}
	for _, in := range installs {
		if ctx.Err() != nil {
			p.fail(ctx.Err())
			return
		}
		if in.SuspendedAt != nil {
			continue // GitHub gives a suspended installation no token
		}
		p.rep.Installations++
		p.installation(ctx, in.GetID())
	}
}

func (p *pass) installation(ctx context.Context, id int64) {
	gh, err := p.r.cfg.Clients.InstallationClient(id)
	if err != nil {
		p.fail(fmt.Errorf("installation %d: client: %w", id, err))
		return
	}
	repos, err := repositories(ctx, gh)
	if err != nil {
		p.fail(fmt.Errorf("installation %d: %w", id, err))
		return
	}
	for _, repo := range repos {
		if ctx.Err() != nil {
			return
		}
		if repo.GetArchived() || !repo.GetHasIssues() {
			continue
		}
		p.rep.Repositories++
		owner, name := repo.GetOwner().GetLogin(), repo.GetName()
		numbers, pulls, err := labelledOpen(ctx, gh, owner, name, p.r.cfg.Label)
		if err != nil {
			p.fail(fmt.Errorf("installation %d: %w", id, err))
			continue
		}
		for _, n := range numbers {
			p.issue(ctx, app.Issue{Installation: id, Owner: owner, Repo: name, Number: n})
		}
		for _, n := range pulls { // a labelled pull request is vetted (docs/vet.md)
			p.issue(ctx, app.Issue{Installation: id, Owner: owner, Repo: name, Number: n, Kind: app.KindVet})
		}
	}
}

func (p *pass) issue(ctx context.Context, issue app.Issue) {
	has, err := p.r.cfg.HasRun(issue)
	switch {
	case err != nil:
		p.fail(fmt.Errorf("run record of %s: %w", issue, err))
		return
	case has:
		return
	}
	if _, tried := p.r.mem.Attempted[issue.String()]; tried {
		return // started before without a record: it was told why and must be relabelled
	}
	if err := p.r.cfg.Start(ctx, issue); err != nil {
		p.fail(fmt.Errorf("start %s: %w", issue, err))
		return
	}
	p.r.mem.Attempted[issue.String()] = p.r.cfg.Now().UTC()
	p.remember()
	if has, err := p.r.cfg.HasRun(issue); err == nil && !has {
		p.rep.Declined++
		p.r.log.Info("reconcile: a labelled issue whose webhook was missed cannot start", "github_issue", issue.String())
		return
	}
	p.rep.Started++
	p.r.log.Info("reconcile: started a labelled issue whose webhook was missed", "github_issue", issue.String())
}

func (p *pass) deliveries(ctx context.Context) {
	gh, err := p.r.cfg.AppClient()
	if err != nil {
		p.fail(fmt.Errorf("app client: %w", err))
		return
	}
	since := p.r.cfg.Now().Add(-p.r.cfg.Window)
	ds, err := recentDeliveries(ctx, gh, since, p.r.cfg.MaxDeliveryPages)
	if err != nil {
		p.fail(err) // go on with the pages read
	}
	for _, d := range failed(ds) {
		if p.rep.Redelivered >= p.r.cfg.MaxRedeliveries || ctx.Err() != nil {
			return
		}
		guid := d.GetGUID()
		if _, asked := p.r.mem.Redelivered[guid]; asked || p.r.cfg.Seen(guid) {
			continue
		}
		_, _, err := gh.Apps.RedeliverHookDelivery(ctx, d.GetID())
		var accepted *github.AcceptedError
		var refused *github.ErrorResponse
		switch {
		case err == nil || errors.As(err, &accepted):
			p.rep.Redelivered++
			p.r.log.Info("reconcile: asked GitHub to redeliver a failed delivery",
				"delivery", guid, "event", d.GetEvent(), "action", d.GetAction(), "status", d.GetStatus())
		case errors.As(err, &refused) && refused.Response != nil && refused.Response.StatusCode < http.StatusInternalServerError &&
			refused.Response.StatusCode != http.StatusTooManyRequests && refused.Response.StatusCode != http.StatusForbidden:
			// GitHub will not redeliver it (too old, unknown): asking again would not help.
			p.fail(fmt.Errorf("redeliver %s (delivery %d): %w", guid, d.GetID(), err))
		default:
			p.fail(fmt.Errorf("redeliver %s (delivery %d): %w", guid, d.GetID(), err))
			continue // a passing failure: the next pass asks again
		}
		p.r.mem.Redelivered[guid] = p.r.cfg.Now().UTC()
		p.remember()
	}
}

// installations lists the App's installations, every page.
func installations(ctx context.Context, gh *github.Client) ([]*github.Installation, error) {
	var all []*github.Installation
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := gh.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return all, fmt.Errorf("list installations: %w", err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// repositories lists the repositories an installation can see, every page.
func repositories(ctx context.Context, gh *github.Client) ([]*github.Repository, error) {
	var all []*github.Repository
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := gh.Apps.ListRepos(ctx, opts)
		if err != nil {
			return all, fmt.Errorf("list repositories: %w", err)
		}
		all = append(all, page.Repositories...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// labelledOpen returns the numbers of owner/repo's open issues and open pull requests
// carrying label, every page (the issues API lists both).
func labelledOpen(ctx context.Context, gh *github.Client, owner, repo, label string) (issues, pulls []int, err error) {
	opts := &github.IssueListByRepoOptions{State: "open", Labels: []string{label}, ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := gh.Issues.ListByRepo(ctx, owner, repo, opts)
		if err != nil {
			return issues, pulls, fmt.Errorf("list issues labelled %q in %s/%s: %w", label, owner, repo, err)
		}
		for _, is := range page {
			if is.IsPullRequest() {
				pulls = append(pulls, is.GetNumber())
			} else {
				issues = append(issues, is.GetNumber())
			}
		}
		if resp.NextPage == 0 {
			return issues, pulls, nil
		}
		opts.Page = resp.NextPage
	}
}

// recentDeliveries reads the App's deliveries, newest first, until one is older than
// since, the pages run out, or maxPages were read.
func recentDeliveries(ctx context.Context, gh *github.Client, since time.Time, maxPages int) ([]*github.HookDelivery, error) {
	var recent []*github.HookDelivery
	opts := &github.ListCursorOptions{PerPage: 100}
	for range maxPages {
		page, resp, err := gh.Apps.ListHookDeliveries(ctx, opts)
		if err != nil {
			return recent, fmt.Errorf("list webhook deliveries: %w", err)
		}
		for _, d := range page {
			if d.GetDeliveredAt().Before(since) {
				return recent, nil
			}
			recent = append(recent, d)
		}
		if resp.Cursor == "" {
			break
		}
		opts.Cursor = resp.Cursor
	}
	return recent, nil
}

// failed returns, oldest first (so that events replay in order), one attempt of each
// delivery GUID of which no attempt succeeded.
func failed(ds []*github.HookDelivery) []*github.HookDelivery {
	ok := map[string]bool{}
	for _, d := range ds {
		if c := d.GetStatusCode(); c >= 200 && c < 300 {
			ok[d.GetGUID()] = true
		}
	}
	var out []*github.HookDelivery
	picked := map[string]bool{}
	for _, d := range ds { // newest first: the latest attempt of each GUID is picked
		if g := d.GetGUID(); !ok[g] && !picked[g] {
			picked[g] = true
			out = append(out, d)
		}
	}
	slices.Reverse(out)
	return out
}
