package apprun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/session"
)

// escalationBranch is the branch of the pull request Dixit opens for issue N (pushBranches).
var escalationBranch = regexp.MustCompile(`^dixit/([0-9]+)-pr$`)

// Decide records a human's decision on the run of an issue (app.Runner.Decide). A decision
// written on the escalation pull request answers the issue that pull request is for.
func (e *Executor) Decide(ctx context.Context, issue app.Issue, onPR bool, ask session.Ask) (app.Issue, orchestrate.Decision, error) {
	target := issue
	if onPR {
		gh, err := e.Clients.InstallationClient(issue.Installation)
		if err != nil {
			return target, orchestrate.Decision{}, fmt.Errorf("GitHub is out of reach (%v); try again", err)
		}
		pr, resp, err := gh.PullRequests.Get(ctx, issue.Owner, issue.Repo, issue.Number)
		if err != nil {
			if resp != nil && resp.StatusCode == http.StatusNotFound {
				return target, orchestrate.Decision{}, errors.New("this pull request cannot be read")
			}
			return target, orchestrate.Decision{}, fmt.Errorf("GitHub is out of reach (%v); try again", err)
		}
		m := escalationBranch.FindStringSubmatch(pr.GetHead().GetRef())
		sameRepo := strings.EqualFold(pr.GetHead().GetRepo().GetFullName(), issue.Owner+"/"+issue.Repo) || pr.GetHead().GetRepo() == nil
		if m == nil || !sameRepo {
			return target, orchestrate.Decision{}, errors.New("decisions answer a Dixit run: write them on the issue, or on the pull request Dixit opened for it")
		}
		n, _ := strconv.Atoi(m[1])
		target.Number = n
	}
	d, err := session.Decide(e.StateDir, RunID(target), ask)
	if errors.Is(err, session.ErrRecorded) {
		// The same comment again (a delivery handled twice after a crash): the run
		// must still go on, so this is not an error.
		return target, d, nil
	}
	if err == nil && !onPR {
		e.noteOnPR(ctx, target, d)
	}
	if errors.Is(err, session.ErrNoRun) {
		return target, d, fmt.Errorf("this server holds no run for #%d; label the issue `%s` to start one", target.Number, cmp.Or(e.Label, "dixit"))
	}
	return target, d, err
}

// noteOnPR tells the escalation pull request, if one is open, about a decision written
// on its issue, so the pull request's timeline shows every decision. A failure is only
// logged: the decision stands, and the pull request's body lists it at the next stop.
func (e *Executor) noteOnPR(ctx context.Context, issue app.Issue, d orchestrate.Decision) {
	gh, err := e.Clients.InstallationClient(issue.Installation)
	if err == nil {
		var n int
		if n, err = ghreport.Find(ctx, gh, issue.Owner, issue.Repo, fmt.Sprintf("dixit/%d-pr", issue.Number)); err == nil && n != 0 {
			what := strings.ReplaceAll(strings.Join(append([]string{d.Verb}, d.Args...), " "), "`", "'")
			body := fmt.Sprintf("@%s decided on #%d: `%s`", d.By, issue.Number, what)
			if d.Reason != "" { // the decider's own words: they mention no one and close nothing
				body += " — " + report.Inert(d.Reason)
			}
			body += ". The run goes on; this pull request is updated when it stops again."
			_, _, err = gh.Issues.CreateComment(ctx, issue.Owner, issue.Repo, n, &github.IssueComment{Body: github.String(body)})
		}
	}
	if err != nil {
		e.logger().Warn("apprun: the escalation pull request was not told of a decision", "github_issue", issue.String(), "err", err)
	}
}
