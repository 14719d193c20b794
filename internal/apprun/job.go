package apprun

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
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

	j       *job
	pub     *ghreport.Publisher
	actions bool

	mu sync.Mutex
	aj *actions.Judge // made on the run's first call, closed by close
}

var _ session.Host = (*host)(nil)

// host hosts a run of the job shown by pub, counting Actions minutes on it.
func (j *job) host(ctx context.Context, pub *ghreport.Publisher) *host {
	h := &host{j: j, pub: pub, actions: j.judgeKind(ctx) == "actions"}
	if h.actions {
		pub.CountMinutes(h.minutes)
	}
	return h
}

// Judge is the Actions judge when the job uses it; else this server's sandbox judges.
func (h *host) Judge(_ context.Context, contract ci.Contract) (ci.Judge, error) {
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
func (h *host) Attach(ctx context.Context, ws *gitstate.Workshop) error {
	return h.j.mirror.attach(ctx, ws)
}

// Reporters show the run on GitHub and mirror it at each round.
func (h *host) Reporters(context.Context) []orchestrate.Reporter {
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

// actionsJudge classifies on GitHub Actions runners of the workshop repository, pushing
// its inputs there with the same token as the mirror.
func (j *job) actionsJudge(contract ci.Contract) (*actions.Judge, error) {
	section, err := contractSection(contract)
	if err != nil {
		return nil, err
	}
	owner, repo, _ := strings.Cut(j.workshop, "/")
	return actions.New(actions.Options{
		Client: j.gh, Owner: owner, Repo: repo, GitURL: j.mirror.url, Token: j.mirror.token, Run: j.run,
		Contract: section, BotVersion: j.e.BotVersion, GitDir: filepath.Join(j.dir, "classify.git"),
		Hub: j.e.Hub, Config: j.e.Actions, Logger: j.log,
	})
}

// contractSection writes a test contract back as the `test:` section of dixit.yml (in
// JSON), the form batch.json carries to the runners.
func contractSection(c ci.Contract) (json.RawMessage, error) {
	section := map[string]any{"path": c.Path, "run": c.Run, "timeout": c.Timeout.String()}
	if c.Build != "" {
		section["build"] = c.Build
	}
	if c.BuildTimeout > 0 {
		section["build_timeout"] = c.BuildTimeout.String()
	}
	if c.Toolchain != "" {
		section["toolchain"] = c.Toolchain
	}
	if c.Probe != "" {
		section["probe"] = c.Probe
	}
	if c.Report != "" {
		section["report"] = c.Report
	}
	if len(c.Exclude) > 0 {
		section["exclude"] = c.Exclude
	}
	if len(c.Paths) > 0 {
		section["paths"] = c.Paths
	}
	if c.Prepare != "" {
		section["prepare"] = c.Prepare
	}
	if c.PrepareTimeout > 0 {
		section["prepare_timeout"] = c.PrepareTimeout.String()
	}
	if len(c.Manifests) > 0 {
		section["manifests"] = c.Manifests
	}
	if c.Memory > 0 {
		section["memory"] = ci.FormatBytes(c.Memory)
	}
	if len(c.Env) > 0 {
		section["env"] = c.Env
	}
	data, err := json.Marshal(section)
	if err != nil {
		return nil, fmt.Errorf("test contract: %w", err)
	}
	return data, nil
}

// judgeKind decides where this run's tests go. "auto" picks GitHub Actions only when the
// workshop's default branch holds the current classification workflow (the App cannot
// commit it: it has no workflows permission) and the runners know which bot to install.
func (j *job) judgeKind(ctx context.Context) string {
	e, log := j.e, j.log
	if e.Judge != "auto" {
		return e.Judge
	}
	if e.BotVersion == "" {
		return "local"
	}
	owner, repo, _ := strings.Cut(j.workshop, "/")
	current, err := actions.WorkflowIsCurrent(ctx, j.gh, owner, repo, "")
	switch {
	case err != nil:
		log.Warn("apprun: cannot tell whether the workshop holds the classification workflow; judging on this server", "err", err)
		return "local"
	case !current:
		log.Info("apprun: the workshop does not hold the current classification workflow; judging on this server (docs/actions.md says how to use GitHub Actions)")
		return "local"
	}
	return "actions"
}
