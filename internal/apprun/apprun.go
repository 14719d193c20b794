// Package apprun runs the Dixit protocol for an issue on GitHub: the issue is the spec,
// the default branch's tip is the base revision, .github/dixit.yml on that branch holds
// the settings, and the run shows itself on the issue while it goes. Its Executor is the
// App's app.Runner: the run manager executes runs and relays decisions through it.
package apprun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/actions"
	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/repoconfig"
	"github.com/dixit-bot/dixit/internal/session"
)

// Executor runs issues.
type Executor struct {
	Clients app.Clients
	// Token returns an installation token for git over HTTPS.
	Token func(ctx context.Context, installation int64) (string, error)
	// GitURL is a repository's clone URL; GitHub's by default.
	GitURL     func(owner, repo string) string
	StateDir   string
	BuildCache string
	// ResultCache holds verdicts and probe runs, shareable between servers; StateDir/cache
	// when empty.
	ResultCache string
	Sandbox     ci.Sandbox
	// Agents play the runs: live through a model, or a scripted population standing in
	// for one (demos, tests).
	Agents cast.Agents
	Logger *slog.Logger

	// Workshop names the private repository holding a target's hidden work: "{repo}-dixit"
	// (the default) or "owner/name", with {owner} and {repo} replaced.
	Workshop string
	// CreateWorkshop lets the App create a missing workshop (organizations only, with the
	// Administration permission).
	CreateWorkshop bool
	// Label is the label that starts runs ("dixit" by default); "<label>:<protocol>" on
	// the issue picks a protocol other than the one dixit.yml names.
	Label string
	// Holder names this server in run leases; it must differ between servers.
	Holder string
	// LeaseTTL is how long a run's lease lasts without renewal (default 2m).
	LeaseTTL time.Duration
	// AfterAppend, when set, is passed to every run's orchestrator: tests hold or cut a
	// run at a journal entry with it.
	AfterAppend func(seq int) error

	// Judge is where tests run: "local" (the default: this server's sandbox), "actions"
	// (GitHub Actions runners of the workshop repository), or "auto": actions when the
	// workshop holds the current classification workflow and BotVersion is set, else local.
	Judge string
	// Actions configures the Actions judge; BotVersion is the version of `bot` the
	// runners install; Hub passes workflow_run webhooks on to waiting judges.
	Actions    actions.Config
	BotVersion string
	Hub        *actions.Hub
}

var _ app.Runner = (*Executor)(nil)

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// RunID names an issue's run; the same issue always resumes the same run, and two
// issues never share one: an owner's name has no "_" on GitHub, so the first "_" ends it,
// and the number is what follows the last "-" (acme_corp-api-3 is acme/corp-api#3, and
// acme-corp_api-3 is acme-corp/api#3). Names are lower-cased, as GitHub compares them.
func RunID(i app.Issue) string {
	owner := strings.ToLower(unsafe.ReplaceAllString(strings.ReplaceAll(i.Owner, "_", "-"), "-"))
	repo := strings.ToLower(unsafe.ReplaceAllString(i.Repo, "-"))
	return fmt.Sprintf("%s_%s-%d", owner, repo, i.Number)
}

// Execute runs (or resumes) the issue's run to its escalation.
func (e *Executor) Execute(ctx context.Context, issue app.Issue) error {
	gh, err := e.Clients.InstallationClient(issue.Installation)
	if err != nil {
		return fmt.Errorf("client for %s: %w", issue, err)
	}
	run := RunID(issue)
	if issue.Kind == app.KindVet {
		run = VetRunID(issue)
	}
	dir := filepath.Join(e.StateDir, "github", run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("state of %s: %w", issue, err)
	}
	wsOwner, wsName, err := e.ensureWorkshop(ctx, gh, issue)
	if errors.Is(err, ErrNoWorkshop) {
		msg := fmt.Sprintf("Dixit cannot start: %s.\n\nThe workshop repository keeps the hidden work of a run (each coder's branch, the tests, the journal) out of this repository. Once it is fixed, `/dixit resume` starts the run.",
			strings.TrimPrefix(err.Error(), ErrNoWorkshop.Error()+": "))
		return errors.Join(err, tellOnce(ctx, gh, issue, dir, msg))
	}
	if err != nil {
		return err
	}
	wsURL := "https://github.com/" + wsOwner + "/" + wsName + ".git"
	if e.GitURL != nil {
		wsURL = e.GitURL(wsOwner, wsName)
	}
	tokenFn := func(ctx context.Context) (string, error) { return e.Token(ctx, issue.Installation) }

	// One server drives a run: the lease is a ref in the workshop, moved by compare-and-swap.
	lease, err := gitstate.AcquireLease(ctx, gitstate.LeaseOptions{
		URL: wsURL, Token: tokenFn, Ref: "refs/dixit-lease/" + run, Holder: e.holder(), TTL: e.LeaseTTL,
	})
	if errors.Is(err, gitstate.ErrLeaseHeld) {
		return fmt.Errorf("%w: %w", app.ErrElsewhere, err)
	}
	if err != nil {
		return fmt.Errorf("lease of %s: %w", issue, err)
	}
	runCtx, stop := context.WithCancelCause(ctx)
	kept := make(chan struct{})
	go func() { defer close(kept); lease.Keep(runCtx, stop) }()
	defer func() {
		stop(nil)
		<-kept // no renewal may follow the release
		release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := lease.Release(release); err != nil {
			e.logger().Warn("apprun: lease not released; it expires by itself", "github_issue", issue.String(), "err", err)
		}
	}()
	ctx = runCtx
	j := &job{e: e, gh: gh, issue: issue, dir: dir, run: run, workshop: wsOwner + "/" + wsName, log: e.runLogger(issue, run),
		mirror: &mirror{url: wsURL, token: tokenFn, prefix: "refs/dixit/" + run + "/"}}
	j.mirror.log = j.log
	if issue.Kind == app.KindVet {
		err = j.driveVet(ctx)
	} else {
		err = j.drive(ctx)
	}
	if cause := context.Cause(ctx); errors.Is(cause, gitstate.ErrLeaseLost) {
		return fmt.Errorf("%w: %w", app.ErrElsewhere, cause)
	}
	return err
}

// drive runs the protocol while holding the run's lease, then publishes the escalation.
// Everything it reads from GitHub comes after the lease: a server that backs off costs
// little.
func (j *job) drive(ctx context.Context) error {
	e, gh, issue := j.e, j.gh, j.issue
	is, _, err := gh.Issues.Get(ctx, issue.Owner, issue.Repo, issue.Number)
	if err != nil {
		return fmt.Errorf("read %s: %w", issue, err)
	}
	cfg := repoconfig.Fetch(ctx, gh, issue.Owner, issue.Repo)
	if cfg.Err != nil {
		return fmt.Errorf("settings of %s: %w", issue, cfg.Err)
	}
	if p := e.labelProtocol(is.Labels); p != "" {
		cfg.Settings.Protocol = p
		if err := cfg.Settings.Validate(); err != nil {
			return fmt.Errorf("settings of %s with protocol %s (from its label): %w", issue, p, err)
		}
	}
	token, err := j.token(ctx)
	if err != nil {
		return fmt.Errorf("token for %s: %w", issue, err)
	}
	url := e.repoURL(issue.Owner, issue.Repo)
	files, head, err := gitstate.FetchHead(ctx, url, cfg.Branch, token)
	if err != nil {
		return err
	}
	pub, err := j.publisher(ctx, cfg, ghreport.Target{HeadSHA: head}, "github.json")
	if err != nil {
		return err
	}
	h := j.host(ctx, pub)
	defer h.close()
	out, err := session.RunInput(ctx, j.options(h), session.Input{
		Spec: spec(is.GetTitle(), is.GetBody()), Files: files, Head: head, Settings: cfg.Settings, Source: issue.String(),
	})
	if err != nil {
		return err
	}
	if err := j.mirror.push(ctx); err != nil {
		return fmt.Errorf("mirror %s to the workshop: %w", issue, err)
	}
	pub.Scanned(out.Summary.Comparison) // beside a tampered coder: where to look first
	if err := pub.Finish(ctx, out.Result); err != nil {
		return err
	}
	if c := out.Summary.Comparison; c != nil && c.Pick.Coder == "" {
		// Every coder tampered with the test runner: there is nothing to propose, and the
		// status comment and the check run already say why.
		j.log.Warn("apprun: no implementation to open a pull request from: every coder tampered")
		return nil
	}
	branch, err := j.pushBranches(ctx, out, cfg.Settings.Test)
	if err != nil {
		return fmt.Errorf("push the branches of %s: %w", issue, err)
	}
	reportURL := fmt.Sprintf("%s/blob/%s/report.md", strings.TrimSuffix(j.mirror.url, ".git"), reportBranch(issue))
	_, err = ghreport.OpenOrUpdate(ctx, gh, issue.Owner, issue.Repo, ghreport.PR{
		Title: "Dixit: " + is.GetTitle(), Body: prBody(out, issue, j.workshop, reportURL), Head: branch, Base: cfg.Branch,
	})
	return err
}

// options are the run's settings on this server, hosted by h.
func (j *job) options(h *host) session.Options {
	e := j.e
	return session.Options{
		StateDir: e.StateDir, BuildCache: e.BuildCache, ResultCache: e.ResultCache, RunID: j.run, Sandbox: e.Sandbox,
		Client: e.Agents.Client, Population: e.Agents.Population, Logger: j.log, Host: h, AfterAppend: e.AfterAppend,
	}
}

// publisher shows the run on GitHub: the status comment and the check run on the head in
// target (its other fields are the job's), remembered in the file named state.
func (j *job) publisher(ctx context.Context, cfg repoconfig.Result, target ghreport.Target, state string) (*ghreport.Publisher, error) {
	target.Owner, target.Repo, target.Issue, target.Run = j.issue.Owner, j.issue.Repo, j.issue.Number, j.run
	target.Unsandboxed = j.e.Sandbox == ci.SandboxNone
	coders, testers := cast.Names(j.e.Agents.Population, cfg.Settings)
	return ghreport.New(ctx, j.gh, target, ghreport.Options{Coders: coders, Testers: testers, StateFile: filepath.Join(j.dir, state), Log: j.log})
}

// repoURL is a repository's clone URL.
func (e *Executor) repoURL(owner, repo string) string {
	if e.GitURL != nil {
		return e.GitURL(owner, repo)
	}
	return fmt.Sprintf("https://github.com/%s/%s.git", owner, repo)
}

// runLogger logs with the fixed keys of the App (package logkey): the issue's, and the run.
func (e *Executor) runLogger(issue app.Issue, run string) *slog.Logger {
	return e.logger().With(issue.LogAttrs()...).With("run_id", run)
}

// labelProtocol is the protocol a "<label>:<protocol>" label on the issue asks for, or "".
func (e *Executor) labelProtocol(labels []*github.Label) string {
	label := e.Label
	if label == "" {
		label = "dixit"
	}
	for _, l := range labels {
		if p, ok := app.ProtocolLabel(label, l.GetName()); ok && p != "" {
			return p
		}
	}
	return ""
}

func (e *Executor) logger() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

// holder names this server in leases: the configured name, else host and process.
func (e *Executor) holder() string {
	if e.Holder != "" {
		return e.Holder
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

// spec is the issue as the agents read it: its title and its text, nothing else (no
// comments: only the author's words define the task).
func spec(title, body string) string {
	return "# " + title + "\n\n" + body
}
