// Package apprun runs the Dixit protocol for an issue on GitHub: the issue is the spec,
// the default branch's tip is the base revision, .github/dixit.yml on that branch holds
// the settings, and the run shows itself on the issue while it goes. It is the App's
// app.Execute.
package apprun

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/localrun"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/repoconfig"
	"github.com/dixit-bot/dixit/internal/webhook"
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
	Sandbox    ci.Sandbox
	Client     llm.Client // live agents; nil when Population is set
	Population string     // scripted agents standing in for the model (demos, tests)
	Logger     *slog.Logger
}

var _ app.Execute = (*Executor)(nil).Execute

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// RunID names an issue's run; the same issue always resumes the same run.
func RunID(i app.Issue) string {
	return fmt.Sprintf("%s-%s-%d", unsafe.ReplaceAllString(i.Owner, "-"), unsafe.ReplaceAllString(i.Repo, "-"), i.Number)
}

// Execute runs (or resumes) the issue's run to its escalation.
func (e *Executor) Execute(ctx context.Context, issue app.Issue) error {
	gh, err := e.Clients.InstallationClient(issue.Installation)
	if err != nil {
		return fmt.Errorf("client for %s: %w", issue, err)
	}
	is, _, err := gh.Issues.Get(ctx, issue.Owner, issue.Repo, issue.Number)
	if err != nil {
		return fmt.Errorf("read %s: %w", issue, err)
	}
	cfg := repoconfig.Fetch(ctx, gh, issue.Owner, issue.Repo)
	if cfg.Err != nil {
		return fmt.Errorf("settings of %s: %w", issue, cfg.Err)
	}
	token, err := e.Token(ctx, issue.Installation)
	if err != nil {
		return fmt.Errorf("token for %s: %w", issue, err)
	}
	url := fmt.Sprintf("https://github.com/%s/%s.git", issue.Owner, issue.Repo)
	if e.GitURL != nil {
		url = e.GitURL(issue.Owner, issue.Repo)
	}
	files, head, err := gitstate.FetchHead(ctx, url, cfg.Branch, token)
	if err != nil {
		return err
	}

	run := RunID(issue)
	log := e.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The fixed log keys of the App (webhook.LogKey*), plus the run.
	log = log.With(webhook.LogKeyInstallationID, issue.Installation, webhook.LogKeyRepository, issue.Owner+"/"+issue.Repo,
		webhook.LogKeyIssue, issue.Number, "run_id", run)
	dir := filepath.Join(e.StateDir, "github", run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("state of %s: %w", issue, err)
	}
	var coders, testers []string
	for _, c := range cfg.Settings.Agents.Coders {
		coders = append(coders, c.Name)
	}
	for _, t := range cfg.Settings.Agents.Testers {
		testers = append(testers, t.Name)
	}
	pub, err := ghreport.New(ctx, gh, ghreport.Target{Owner: issue.Owner, Repo: issue.Repo, Issue: issue.Number, HeadSHA: head, Run: run},
		coders, testers, filepath.Join(dir, "github.json"), log)
	if err != nil {
		return err
	}
	out, err := localrun.RunInput(ctx, localrun.Options{
		StateDir: e.StateDir, BuildCache: e.BuildCache, RunID: run, Sandbox: e.Sandbox,
		Client: e.Client, Population: e.Population, Logger: log,
	}, localrun.Input{
		Spec: spec(is.GetTitle(), is.GetBody()), Files: files, Head: head, Settings: cfg.Settings,
		Source: issue.String(), Reporters: []orchestrate.Reporter{pub},
	})
	if err != nil {
		return err
	}
	if err := pub.Finish(ctx, out.Result); err != nil {
		return err
	}
	branch, chosen, agreed, err := pushBranches(ctx, out, issue, cfg.Settings.Test, url, token)
	if err != nil {
		return fmt.Errorf("push the branches of %s: %w", issue, err)
	}
	_, err = ghreport.OpenOrUpdate(ctx, gh, issue.Owner, issue.Repo, ghreport.PR{
		Title: "Dixit: " + is.GetTitle(), Body: prBody(out, issue, chosen.Name, agreed), Head: branch, Base: cfg.Branch,
	})
	return err
}

// spec is the issue as the agents read it: its title and its text, nothing else (no
// comments: only the author's words define the task).
func spec(title, body string) string {
	return "# " + title + "\n\n" + body
}
