package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/commands"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/repoconfig"
	"github.com/dixit-bot/dixit/internal/webhook"
)

// Clients gives a GitHub client acting as one installation (ghapp.ClientCreator does).
type Clients interface {
	InstallationClient(installationID int64) (*github.Client, error)
}

// Base is what every handler needs.
type Base struct {
	Clients Clients
	Runs    *Manager
	Label   string
	Logger  *slog.Logger
}

func (b Base) logger() *slog.Logger {
	if b.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return b.Logger
}

var (
	_ webhook.Handler = (*IssuesHandler)(nil)
	_ webhook.Handler = (*CommentHandler)(nil)
)

// IssuesHandler starts a run when the label is added, and cancels it when the label is
// removed or the issue is closed.
type IssuesHandler struct{ Base }

func (h *IssuesHandler) Handles() []string { return []string{"issues"} }

func (h *IssuesHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.IssuesEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse issues event: %w", err)
	}
	issue := issueOf(ev.GetInstallation(), ev.GetRepo(), ev.GetIssue())
	if issue.Installation == 0 || ev.GetIssue().IsPullRequest() {
		return nil // not sent to an installation, or a PR: not ours to act on
	}
	switch ev.GetAction() {
	case "labeled":
		if _, ok := ProtocolLabel(h.Label, ev.GetLabel().GetName()); !ok {
			return nil
		}
		return h.start(ctx, issue)
	case "unlabeled":
		if _, ok := ProtocolLabel(h.Label, ev.GetLabel().GetName()); !ok {
			return nil
		}
		_, err := h.Runs.Stop(issue, Cancelled)
		return err
	case "closed":
		_, err := h.Runs.Stop(issue, Cancelled)
		return err
	default:
		return nil
	}
}

// ProtocolLabel tells whether a label starts a run: the label itself (the protocol
// dixit.yml names), or the label, a colon and a protocol, such as "dixit:critics".
func ProtocolLabel(label, name string) (protocol string, ok bool) {
	if strings.EqualFold(name, label) {
		return "", true
	}
	prefix, p, found := strings.Cut(name, ":")
	if !found || !strings.EqualFold(prefix, label) {
		return "", false
	}
	p = strings.ToLower(strings.TrimSpace(p))
	if !slices.Contains(config.Protocols, p) {
		return "", false
	}
	return p, true
}

// StartIssue starts a run for issue as a labelled webhook does: a bad or unreadable
// .github/dixit.yml gets a comment on the issue and no run; an issue whose run is live
// is left alone. The reconciler uses it for labels whose webhook was missed.
func (h *IssuesHandler) StartIssue(ctx context.Context, issue Issue) error {
	return h.start(ctx, issue)
}

func (h *IssuesHandler) start(ctx context.Context, issue Issue) error {
	gh, err := h.Clients.InstallationClient(issue.Installation)
	if err != nil {
		return webhook.Retryable(fmt.Errorf("client for %s: %w", issue, err))
	}
	return h.Base.start(ctx, gh, issue)
}

// start reads the repository's settings from its default branch; a bad file gets a
// comment that names the problem and no run starts.
func (b Base) start(ctx context.Context, gh *github.Client, issue Issue) error {
	return b.startWith(ctx, gh, issue, b.Runs.Start)
}

// startWith is start with the manager's Start or Again.
func (b Base) startWith(ctx context.Context, gh *github.Client, issue Issue, launch func(Issue) (bool, error)) error {
	cfg := repoconfig.Fetch(ctx, gh, issue.Owner, issue.Repo)
	if cfg.Outcome == repoconfig.Unreadable && b.Runs.Transient != nil && b.Runs.Transient(cfg.Err) {
		// GitHub failed on the way: try the delivery again rather than tell the issue.
		return webhook.Retryable(fmt.Errorf("settings of %s: %w", issue, cfg.Err))
	}
	if msg := cfg.Comment(); msg != "" {
		return comment(ctx, gh, issue, msg)
	}
	started, err := launch(issue)
	if err != nil {
		return err
	}
	b.logger().Info("app: run requested", "github_issue", issue.String(), "kind", issue.Kind, "started", started)
	return nil
}

// CommentHandler answers /dixit commands from users with write access.
type CommentHandler struct{ Base }

func (h *CommentHandler) Handles() []string { return []string{"issue_comment"} }

func (h *CommentHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.IssueCommentEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse issue_comment event: %w", err)
	}
	if ev.GetAction() != "created" || ev.GetComment().GetUser().GetType() == "Bot" {
		return nil
	}
	cmd, ok := commands.Parse(ev.GetComment().GetBody())
	if !ok {
		return nil // conversation, not a command: ignored quietly
	}
	issue := issueOf(ev.GetInstallation(), ev.GetRepo(), ev.GetIssue())
	if issue.Installation == 0 {
		return nil
	}
	gh, err := h.Clients.InstallationClient(issue.Installation)
	if err != nil {
		return webhook.Retryable(fmt.Errorf("client for %s: %w", issue, err))
	}
	user := ev.GetComment().GetUser().GetLogin()
	if ok, err := mayWrite(ctx, gh, issue, user); err != nil {
		return err
	} else if !ok {
		return comment(ctx, gh, issue, fmt.Sprintf("@%s only people with write access can use `/dixit` commands here.", user))
	}
	if cmd.Verb == "vet" {
		return h.vetCommand(ctx, gh, ev, cmd)
	}
	if orchestrate.IsDecisionVerb(cmd.Verb) {
		return h.decide(ctx, gh, ev, cmd)
	}
	return comment(ctx, gh, issue, h.answer(issue, cmd))
}

// answer carries out a command and says what happened.
func (h *CommentHandler) answer(issue Issue, cmd commands.Command) string {
	switch cmd.Verb {
	case "status":
		r, ok, err := h.Runs.Record(issue)
		switch {
		case err != nil:
			return "I could not read this issue's run: " + err.Error()
		case !ok:
			return fmt.Sprintf("No run for this issue. Add the `%s` label to start one.", h.Label)
		}
		return fmt.Sprintf("The run for this issue is **%s** (updated %s).", r.State, r.Updated.Format("2006-01-02 15:04 MST"))
	case "stop":
		live, err := h.Runs.Stop(issue, Stopped)
		if err != nil {
			return "I could not stop the run: " + err.Error()
		}
		if !live {
			return "No run is going on for this issue."
		}
		return "Stopped. Everything done so far is kept; `/dixit resume` goes on from there."
	case "resume":
		r, ok, err := h.Runs.Record(issue)
		// A failed run resumes too: it failed on something a human can fix (a missing
		// workshop repository, a revoked permission), and its journal keeps its work.
		if err != nil || !ok || (r.State != Stopped && r.State != Failed) {
			return "There is no stopped or failed run to resume on this issue."
		}
		if _, err := h.Runs.Start(r.Issue); err != nil { // the record's: it knows the run's kind
			return "I could not resume the run: " + err.Error()
		}
		return "Resumed from where the run stopped."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "I don't know `/dixit %s`. Commands:\n", cmd.Verb)
	for _, verb := range []string{"status", "stop", "resume", "vet", "help"} {
		fmt.Fprintf(&b, "- `/dixit %s`: %s\n", verb, commands.Known[verb])
	}
	b.WriteString("\nWhen a run stops for a human:\n")
	for _, v := range orchestrate.DecisionVerbs {
		fmt.Fprintf(&b, "- `/dixit %s`: %s\n", v.Usage, v.Does)
	}
	if cmd.Verb == "help" {
		return strings.Replace(b.String(), "I don't know `/dixit help`. ", "", 1)
	}
	return b.String()
}

// mayWrite tells whether user may steer runs in issue's repository: `/dixit` commands,
// Re-run and the buttons of Dixit's check runs all ask it.
func mayWrite(ctx context.Context, gh *github.Client, issue Issue, user string) (bool, error) {
	perm, _, err := gh.Repositories.GetPermissionLevel(ctx, issue.Owner, issue.Repo, user)
	if err != nil {
		return false, webhook.Retryable(fmt.Errorf("permission of %s on %s: %w", user, issue, err))
	}
	// Fail closed: only admin and write (maintain is reported as write) may steer runs.
	p := perm.GetPermission()
	return p == "admin" || p == "write", nil
}

func issueOf(inst *github.Installation, repo *github.Repository, is *github.Issue) Issue {
	return Issue{Installation: inst.GetID(), Owner: repo.GetOwner().GetLogin(), Repo: repo.GetName(), Number: is.GetNumber()}
}

func comment(ctx context.Context, gh *github.Client, issue Issue, body string) error {
	_, _, err := gh.Issues.CreateComment(ctx, issue.Owner, issue.Repo, issue.Number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return webhook.Retryable(fmt.Errorf("comment on %s: %w", issue, err))
	}
	return nil
}

// WorkflowRunHandler tells the Actions judge that a classification run in a workshop
// repository finished, so it stops waiting at once instead of at its next poll.
type WorkflowRunHandler struct {
	Notify func(owner, repo string, runID int64, status, conclusion string)
}

func (h *WorkflowRunHandler) Handles() []string { return []string{"workflow_run"} }

func (h *WorkflowRunHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.WorkflowRunEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse workflow_run event: %w", err)
	}
	run := ev.GetWorkflowRun()
	if ev.GetAction() != "completed" || run.GetID() == 0 || ev.GetRepo().GetOwner().GetLogin() == "" {
		return nil
	}
	// Only a judge waiting on this run in this repository acts on it, and the verdicts
	// still come only from the run's artifacts, checked against what was asked.
	h.Notify(ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName(), run.GetID(), run.GetStatus(), run.GetConclusion())
	return nil
}
