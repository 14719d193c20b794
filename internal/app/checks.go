package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/logkey"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
	"github.com/dixit-bot/dixit/internal/webhook"
)

var _ webhook.Handler = (*CheckHandler)(nil)

// CheckHandler answers the buttons of Dixit's check runs, each for someone with write
// access only, like a `/dixit` command: Re-run (check_run or check_suite rerequested)
// resumes an issue's run or vets a pull request again, and a decision's button
// (requested_action) is carried out as `/dixit <its words>` would be.
type CheckHandler struct{ Base }

func (h *CheckHandler) Handles() []string { return []string{"check_run", "check_suite"} }

func (h *CheckHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	switch eventType {
	case "check_run":
		var ev github.CheckRunEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("parse check_run event: %w", err)
		}
		return h.checkRun(ctx, deliveryID, ev)
	case "check_suite":
		var ev github.CheckSuiteEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("parse check_suite event: %w", err)
		}
		return h.checkSuite(ctx, ev)
	}
	return nil
}

func (h *CheckHandler) checkRun(ctx context.Context, deliveryID string, ev github.CheckRunEvent) error {
	if ev.GetAction() != "rerequested" && ev.GetAction() != "requested_action" {
		return nil
	}
	r, ok := h.runOf(ev.GetInstallation(), ev.GetRepo(), ev.GetCheckRun())
	if !ok {
		// GitHub sends these only to the App that made the check run: a run another
		// server drove (its directory is there), or one this server lost.
		h.logger().Info("app: a check run of a run this server does not hold; ignored", logkey.Repository,
			ev.GetRepo().GetFullName(), "external_id", ev.GetCheckRun().GetExternalID(), "action", ev.GetAction())
		return nil
	}
	gh, user, ok, err := h.allowed(ctx, r.Issue, ev.GetSender())
	if err != nil || !ok {
		return err
	}
	cr := ghreport.CheckRef{Owner: r.Issue.Owner, Repo: r.Issue.Repo, ID: ev.GetCheckRun().GetID()}
	if ev.GetAction() == "rerequested" {
		return h.rerun(ctx, gh, r, user, cr)
	}
	words := strings.Fields(ev.GetRequestedAction().Identifier)
	if r.Issue.Kind == KindVet || len(words) == 0 || !orchestrate.IsDecisionVerb(words[0]) {
		h.logger().Info("app: a button Dixit does not offer; ignored", append(r.Issue.LogAttrs(), "identifier", ev.GetRequestedAction().Identifier)...)
		return nil
	}
	// The delivery names the decision: a delivery handled twice records it once.
	ask := session.Ask{ID: "action-" + deliveryID, Verb: words[0], Args: words[1:], By: user, At: time.Now().UTC()}
	if err := h.relay(ctx, gh, r.Issue, false, ask); err != nil {
		return err
	}
	h.clearButtons(ctx, gh, r, cr)
	return nil
}

// checkSuite re-runs each of this server's runs with a check run in the suite ("Re-run
// all checks" on a commit).
func (h *CheckHandler) checkSuite(ctx context.Context, ev github.CheckSuiteEvent) error {
	if ev.GetAction() != "rerequested" || ev.GetInstallation().GetID() == 0 {
		return nil
	}
	owner, repo, suite := ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName(), ev.GetCheckSuite()
	gh, err := h.Clients.InstallationClient(ev.GetInstallation().GetID())
	if err != nil {
		return webhook.Retryable(fmt.Errorf("client for %s/%s: %w", owner, repo, err))
	}
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	seen := map[string]bool{}
	for {
		res, resp, err := gh.Checks.ListCheckRunsForRef(ctx, owner, repo, suite.GetHeadSHA(), opts)
		if err != nil {
			return webhook.Retryable(fmt.Errorf("check runs of %s/%s@%s: %w", owner, repo, suite.GetHeadSHA(), err))
		}
		for _, c := range res.CheckRuns {
			r, ok := h.runOf(ev.GetInstallation(), ev.GetRepo(), c)
			if !ok || c.GetCheckSuite().GetID() != suite.GetID() || seen[r.Issue.String()] {
				continue
			}
			seen[r.Issue.String()] = true
			if err := h.checkRun(ctx, "", github.CheckRunEvent{Action: github.String("rerequested"), CheckRun: c,
				Repo: ev.GetRepo(), Sender: ev.GetSender(), Installation: ev.GetInstallation()}); err != nil {
				return err
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// allowed tells whether the person who clicked may steer runs; one who may not is told
// so on the issue or pull request, and nothing happens.
func (h *CheckHandler) allowed(ctx context.Context, issue Issue, sender *github.User) (*github.Client, string, bool, error) {
	gh, err := h.Clients.InstallationClient(issue.Installation)
	if err != nil {
		return nil, "", false, webhook.Retryable(fmt.Errorf("client for %s: %w", issue, err))
	}
	user := sender.GetLogin()
	ok, err := mayWrite(ctx, gh, issue, user)
	if err != nil || ok {
		return gh, user, ok, err
	}
	return gh, user, false, comment(ctx, gh, issue, fmt.Sprintf("@%s only people with write access can re-run Dixit's checks or use their buttons here.", user))
}

// rerun is Re-run on a check run: a pull request is vetted again at its newest head; an
// issue's run resumes from where it stopped (and a stop on the judge's environment is
// judged again) unless it was cancelled, which only the label undoes.
func (h *CheckHandler) rerun(ctx context.Context, gh *github.Client, r Record, user string, cr ghreport.CheckRef) error {
	if r.Issue.Kind == KindVet {
		pr := h.current(r.Issue)
		if err := h.vetAgain(ctx, pr); err != nil {
			return err
		}
		if now, ok, err := h.Runs.Record(pr); err != nil || !ok || now.State != Running {
			return nil // the settings were refused, and start said why
		}
		return comment(ctx, gh, r.Issue, fmt.Sprintf("@%s Vetting this pull request again: its newest head is judged on the run's tests. The verdict comes as a review and a check run.", user))
	}
	switch r.State {
	case Running:
		return comment(ctx, gh, r.Issue, fmt.Sprintf("@%s The run for this issue is going on already; its check run is completed again when it stops.", user))
	case Cancelled:
		return comment(ctx, gh, r.Issue, fmt.Sprintf("@%s The run for this issue was cancelled (its label was removed or the issue closed): add the `%s` label to start it again.", user, h.Label))
	}
	if _, err := h.Runs.Start(r.Issue); err != nil {
		return comment(ctx, gh, r.Issue, fmt.Sprintf("@%s I could not resume the run: %v. `/dixit resume` tries again.", user, err))
	}
	h.clearButtons(ctx, gh, r, cr)
	return comment(ctx, gh, r.Issue, fmt.Sprintf("@%s Re-running: the run goes on from where it stopped; its status comment follows it.", user))
}

// clearButtons takes a resumed run's buttons away: they answered the stop that is over,
// and the next stop offers its own. A failure only costs a refused click later.
func (h *CheckHandler) clearButtons(ctx context.Context, gh *github.Client, r Record, cr ghreport.CheckRef) {
	if r.Issue.Kind == KindVet {
		return
	}
	if err := ghreport.SetActions(ctx, gh, cr, nil); err != nil {
		h.logger().Warn("app: the buttons of a resumed run's check run stay", append(r.Issue.LogAttrs(), "err", err)...)
	}
}

// runID reads a run's id as apprun.RunID and VetRunID write it (a check run's external
// id): owner_repo-N, then -vet and -fCOMMENT for a pull request's vetting.
var runID = regexp.MustCompile(`^[a-z0-9.-]+_[a-z0-9_.-]+-([0-9]+)(-vet(?:-f[0-9]+)?)?$`)

// runOf finds the run a check run shows, from its external id, among the runs this
// server holds: a check run of another App, or of a run another server holds, is not
// ours to act on.
func (b Base) runOf(inst *github.Installation, repo *github.Repository, cr *github.CheckRun) (Record, bool) {
	m := runID.FindStringSubmatch(cr.GetExternalID())
	if m == nil || inst.GetID() == 0 {
		return Record{}, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return Record{}, false
	}
	issue := Issue{Installation: inst.GetID(), Owner: repo.GetOwner().GetLogin(), Repo: repo.GetName(), Number: n}
	r, ok, err := b.Runs.Record(issue)
	if err != nil || !ok || (r.Issue.Kind == KindVet) != (m[2] != "") {
		return Record{}, false
	}
	r.Issue.Installation = issue.Installation // the delivery's is the current one
	return r, true
}

// relay hands a human's decision to the run (Manager.Decide) and resumes it, answering
// on where: how a `/dixit` decision and a check run's button are carried out alike.
func (b Base) relay(ctx context.Context, gh *github.Client, where Issue, onPR bool, ask session.Ask) error {
	target, d, err := b.Runs.Decide(ctx, where, onPR, ask)
	if errors.Is(err, ErrNoDecisions) {
		return comment(ctx, gh, where, "This server does not take decisions on runs.")
	}
	if err != nil {
		return comment(ctx, gh, where, refused(ask.By, err))
	}
	if r, ok, err := b.Runs.Record(target); err == nil && ok {
		target = r.Issue
	}
	if _, err := b.Runs.Start(target); err != nil {
		return comment(ctx, gh, where, fmt.Sprintf("@%s Your decision is recorded, but I could not resume the run: %v. `/dixit resume` tries again.", ask.By, err))
	}
	what := strings.Join(append([]string{d.Verb}, d.Args...), " ")
	if d.Reason != "" {
		what += " (" + d.Reason + ")"
	}
	what = strings.ReplaceAll(what, "`", "'")
	of := ""
	if target.Number != where.Number {
		of = fmt.Sprintf(" of #%d", target.Number)
	}
	return comment(ctx, gh, where, fmt.Sprintf("@%s Noted: `%s`. The run%s goes on from where it stopped; its status comment follows it, and the decision is kept with the run.", ask.By, what, of))
}
