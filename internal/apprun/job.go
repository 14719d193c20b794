package apprun

import (
	"context"
	"log/slog"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
)

// job is one issue's run, or one pull request's vetting, on this server while it holds the
// run's lease: what every step of it needs to reach GitHub, the workshop and the run.
type job struct {
	e        *Executor
	gh       *github.Client
	issue    app.Issue // the issue, or the pull request being vetted
	dir      string    // this server's state for the issue (status comment ids, notes told)
	run      string    // the run id
	mirror   *mirror   // the run's refs in the workshop repository
	workshop string    // owner/name of the workshop repository
	log      *slog.Logger
}

// token is a current installation token: a run can outlast one (an hour).
func (j *job) token(ctx context.Context) (string, error) {
	return j.e.Token(ctx, j.issue.Installation)
}
