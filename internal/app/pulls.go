package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/commands"
	"github.com/dixit-bot/dixit/internal/webhook"
)

var _ webhook.Handler = (*PullRequestHandler)(nil)

// PullRequestHandler vets a pull request when the label is added to it (docs/vet.md),
// judges again each head pushed to a pull request that carries the label, and cancels
// the vetting when the label is removed or the pull request closed.
type PullRequestHandler struct{ Base }

func (h *PullRequestHandler) Handles() []string { return []string{"pull_request"} }

func (h *PullRequestHandler) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var ev github.PullRequestEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return fmt.Errorf("parse pull_request event: %w", err)
	}
	pr := Issue{Installation: ev.GetInstallation().GetID(), Owner: ev.GetRepo().GetOwner().GetLogin(),
		Repo: ev.GetRepo().GetName(), Number: ev.GetPullRequest().GetNumber(), Kind: KindVet}
	if pr.Installation == 0 || pr.Number == 0 {
		return nil
	}
	switch ev.GetAction() {
	case "labeled":
		if !strings.EqualFold(ev.GetLabel().GetName(), h.Label) {
			return nil
		}
		return h.vet(ctx, h.current(pr))
	case "synchronize", "reopened":
		// A new head, or the pull request is back: judge it if it carries the label,
		// unless a human stopped the vetting.
		labelled := slices.ContainsFunc(ev.GetPullRequest().Labels, func(l *github.Label) bool {
			return strings.EqualFold(l.GetName(), h.Label)
		})
		if !labelled {
			return nil
		}
		if r, ok, err := h.Runs.Record(pr); err != nil {
			return err
		} else if ok && r.State == Stopped {
			return nil
		}
		return h.vetAgain(ctx, h.current(pr))
	case "unlabeled":
		if !strings.EqualFold(ev.GetLabel().GetName(), h.Label) {
			return nil
		}
		_, err := h.Runs.Stop(pr, Cancelled)
		return err
	case "closed":
		// A vetting a human stopped stays stopped: reopening must not undo /dixit stop.
		if r, ok, err := h.Runs.Record(pr); err != nil {
			return err
		} else if ok && r.State == Stopped {
			return nil
		}
		_, err := h.Runs.Stop(pr, Cancelled)
		return err
	}
	return nil
}

// current is the pull request's vetting as recorded: it keeps the run a `/dixit vet
// --fresh` moved it to, so later heads are judged against that run's suite.
func (b Base) current(pr Issue) Issue {
	if r, ok, err := b.Runs.Record(pr); err == nil && ok && r.Issue.Kind == KindVet {
		pr.Fresh = r.Issue.Fresh
	}
	return pr
}

// vet starts vetting a pull request, after the same settings check as an issue's run.
// A vetting that is going on already picks the newest head up when it is done.
func (b Base) vet(ctx context.Context, pr Issue) error { return b.vetWith(ctx, pr, b.Runs.Start) }

// vetAgain is vet for a new head: a vetting going on judges it once it ends, even if it
// had already looked for new heads.
func (b Base) vetAgain(ctx context.Context, pr Issue) error { return b.vetWith(ctx, pr, b.Runs.Again) }

func (b Base) vetWith(ctx context.Context, pr Issue, launch func(Issue) (bool, error)) error {
	gh, err := b.Clients.InstallationClient(pr.Installation)
	if err != nil {
		return webhook.Retryable(fmt.Errorf("client for %s: %w", pr, err))
	}
	return b.startWith(ctx, gh, pr, launch)
}

// vetCommand answers `/dixit vet [--fresh]` on a pull request. --fresh stops the vetting
// going on and starts a run of its own, with new coders and testers.
func (h *CommentHandler) vetCommand(ctx context.Context, gh *github.Client, ev github.IssueCommentEvent, cmd commands.Command) error {
	issue := issueOf(ev.GetInstallation(), ev.GetRepo(), ev.GetIssue())
	if !ev.GetIssue().IsPullRequest() {
		return comment(ctx, gh, issue, fmt.Sprintf("`/dixit vet` vets a pull request: use it in a pull request's conversation. To build this issue, add the `%s` label.", h.Label))
	}
	for _, a := range cmd.Args {
		if a != "--fresh" {
			return comment(ctx, gh, issue, fmt.Sprintf("I don't know `%s`. Use `/dixit vet`, or `/dixit vet --fresh` for new coders and testers.", a))
		}
	}
	pr := issue
	pr.Kind = KindVet
	pr = h.current(pr)
	msg := "Vetting this pull request: independent coders build its spec from the base revision, testers propose tests they never see, and the patch is judged on the tests most of them agree on. The verdict comes as a review and a check run."
	if len(cmd.Args) > 0 {
		if _, err := h.Runs.Stop(pr, Cancelled); err != nil {
			return err
		}
		pr.Fresh = ev.GetComment().GetID()
		msg = "Vetting this pull request afresh: new coders and testers, a new suite. The verdict comes as a review and a check run."
	} else if r, ok, err := h.Runs.Record(pr); err == nil && ok && r.State == Running {
		return comment(ctx, gh, issue, "This pull request is being vetted already; its newest head is judged when the run is done.")
	}
	if err := h.start(ctx, gh, pr); err != nil {
		return err
	}
	if r, ok, err := h.Runs.Record(pr); err != nil || !ok || r.State != Running {
		return nil // the settings were refused, and start said why
	}
	return comment(ctx, gh, issue, msg)
}
