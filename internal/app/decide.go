package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/commands"
	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/session"
)

// refused tells the commenter their decision changed nothing. The error may echo their
// own words (a test id, a reason): quoted inertly, so "/dixit drop @team" pings no one.
func refused(user string, err error) string {
	return fmt.Sprintf("@%s I did not change anything: %s.", user, ghreport.Inert(err.Error()))
}

// decide relays a decision command (`/dixit drop t2 wrong expectation`) from someone with
// write access to the run, which reads, checks and records it (session.Decide); then the
// run goes on from there. One that does not fit gets the reason and changes nothing.
func (h *CommentHandler) decide(ctx context.Context, gh *github.Client, ev github.IssueCommentEvent, cmd commands.Command) error {
	issue := issueOf(ev.GetInstallation(), ev.GetRepo(), ev.GetIssue())
	user := ev.GetComment().GetUser().GetLogin()
	// The comment's id names the decision: a redelivered webhook cannot record it twice.
	ask := session.Ask{ID: "comment-" + strconv.FormatInt(ev.GetComment().GetID(), 10), Verb: cmd.Verb, Args: cmd.Args,
		By: user, At: ev.GetComment().GetCreatedAt().Time}
	return h.relay(ctx, gh, issue, ev.GetIssue().IsPullRequest(), ask)
}
