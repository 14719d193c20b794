package apprun

import (
	"context"
	"log/slog"
	"sync"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/actions"
	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
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

// host is how the App hosts a run (session.Host): judged on GitHub Actions runners when the
// job should be (judgeKind), mirrored to the workshop repository, and shown on GitHub.
type host struct {
	session.Terminal // showing nothing: the server's log and the status comment are the App's display

	ctx     context.Context // the job's: the mirror reads the workshop while the run opens
	j       *job
	pub     *ghreport.Publisher
	actions bool

	mu sync.Mutex
	aj *actions.Judge // made on the run's first call, closed by close
}

var _ session.Host = (*host)(nil)

// host hosts a run of the job shown by pub, counting Actions minutes on it.
func (j *job) host(ctx context.Context, pub *ghreport.Publisher) *host {
	h := &host{ctx: ctx, j: j, pub: pub, actions: j.judgeKind(ctx) == "actions"}
	if h.actions {
		pub.CountMinutes(h.minutes)
	}
	return h
}

// Judge is the Actions judge when the job uses it; else this server's sandbox judges.
func (h *host) Judge(contract ci.Contract) (ci.Judge, error) {
	if !h.actions {
		return nil, nil
	}
	made, err := h.j.actionsJudge(contract)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.aj = made
	h.mu.Unlock()
	return made, nil
}

// Attach adopts the run from the workshop repository if another server mirrored it,
// and mirrors it there from now on.
func (h *host) Attach(ws *gitstate.Workshop) error { return h.j.mirror.attach(h.ctx)(ws) }

// Reporters show the run on GitHub and mirror it at each round.
func (h *host) Reporters() []orchestrate.Reporter {
	return []orchestrate.Reporter{h.pub, h.j.mirror}
}

func (h *host) minutes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.aj == nil {
		return 0
	}
	return h.aj.Minutes()
}

// close releases the Actions judge, if one was made.
func (h *host) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.aj != nil {
		h.aj.Close()
	}
}
