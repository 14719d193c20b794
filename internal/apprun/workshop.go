package apprun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// ErrNoWorkshop means the issue's workshop repository is missing, public or out of the
// App's reach, and a human must fix that; the issue gets a comment saying how.
var ErrNoWorkshop = errors.New("no usable workshop repository")

// workshopName resolves the template ({owner}, {repo}; "name" or "owner/name") for a
// target repository.
func workshopName(template string, issue app.Issue) (owner, name string) {
	s := strings.NewReplacer("{owner}", issue.Owner, "{repo}", issue.Repo).Replace(template)
	if o, n, ok := strings.Cut(s, "/"); ok {
		return o, n
	}
	return issue.Owner, s
}

// ensureWorkshop finds the private repository that holds the issue's hidden work, or
// creates it when allowed and the App may (in an organization, with the Administration
// permission). It never settles for a public repository or for the target itself: the
// workshop holds the vetted tests the coders must never see.
func (e *Executor) ensureWorkshop(ctx context.Context, gh *github.Client, issue app.Issue) (string, string, error) {
	template := e.Workshop
	if template == "" {
		template = "{repo}-dixit"
	}
	owner, name := workshopName(template, issue)
	full := owner + "/" + name
	if strings.EqualFold(owner, issue.Owner) && strings.EqualFold(name, issue.Repo) {
		return "", "", fmt.Errorf("%w: the workshop %s is the repository itself; it must be a separate private repository", ErrNoWorkshop, full)
	}
	repo, resp, err := gh.Repositories.Get(ctx, owner, name)
	switch {
	case err == nil:
		if !repo.GetPrivate() {
			return "", "", fmt.Errorf("%w: %s is public, and the hidden tests would be visible to anyone; make it private", ErrNoWorkshop, full)
		}
		return owner, name, nil
	case resp == nil || resp.StatusCode != http.StatusNotFound:
		return "", "", fmt.Errorf("look up the workshop %s: %w", full, err)
	case !e.CreateWorkshop:
		return "", "", fmt.Errorf("%w: %s does not exist (or the App is not installed on it); create it as a private repository and add it to the App's installation", ErrNoWorkshop, full)
	}
	_, resp, err = gh.Repositories.Create(ctx, owner, &github.Repository{
		Name: github.String(name), Private: github.Bool(true),
		Description: github.String(fmt.Sprintf("Dixit's hidden work for %s/%s: coder branches, tests, journals. Keep it private.", issue.Owner, issue.Repo)),
		HasIssues:   github.Bool(false), HasWiki: github.Bool(false), HasProjects: github.Bool(false),
	})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusUnprocessableEntity {
			return "", "", fmt.Errorf("%w: %s exists but the App cannot see it; add it to the App's installation", ErrNoWorkshop, full)
		}
		if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) {
			return "", "", fmt.Errorf("%w: %s does not exist and the App may not create it (%v); create it as a private repository and add it to the App's installation", ErrNoWorkshop, full, err)
		}
		return "", "", fmt.Errorf("create the workshop %s: %w", full, err)
	}
	return owner, name, nil
}

// tellOnce posts msg on the issue unless the same message was posted for this run
// before (marked by a file in dir), so retries do not repeat it.
func tellOnce(ctx context.Context, gh *github.Client, issue app.Issue, dir, msg string) error {
	mark := filepath.Join(dir, "told-"+fmt.Sprintf("%08x", hash(msg)))
	if _, err := os.Stat(mark); err == nil {
		return nil
	}
	if _, _, err := gh.Issues.CreateComment(ctx, issue.Owner, issue.Repo, issue.Number, &github.IssueComment{Body: github.String(msg)}); err != nil {
		return fmt.Errorf("comment on %s: %w", issue, err)
	}
	return os.WriteFile(mark, nil, 0o644)
}

func hash(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// mirror pushes the run's hidden refs to the remote workshop at each round and at the
// end, so another server (or this one on a new disk) can go on from there. A failed push
// is retried at the next round: the local disk still holds everything.
type mirror struct {
	url    string
	token  func(ctx context.Context) (string, error)
	prefix string
	log    *slog.Logger
	ws     *gitstate.Workshop // set by Attach once the run's workshop is open
}

func (m *mirror) Event(ctx context.Context, ev orchestrate.Event) {
	if ev.Replayed || ev.Kind != orchestrate.EvRound || m.ws == nil {
		return
	}
	if err := m.push(ctx); err != nil {
		m.log.Warn("apprun: run not mirrored to the workshop; the next round tries again", "err", err)
	}
}

func (m *mirror) push(ctx context.Context) error {
	token, err := m.token(ctx)
	if err != nil {
		return err
	}
	return m.ws.PushRun(ctx, m.url, token, m.prefix)
}

// attach adopts a run the remote workshop holds further than this disk does, and
// mirrors the run's workshop ws from now on.
func (m *mirror) attach(ctx context.Context, ws *gitstate.Workshop) error {
	m.ws = ws
	token, err := m.token(ctx)
	if err != nil {
		return err
	}
	adopted, err := ws.PullRun(ctx, m.url, token, m.prefix)
	if err != nil {
		return fmt.Errorf("read the run from the workshop: %w", err)
	}
	if adopted {
		m.log.Info("apprun: adopted the run from the workshop repository")
	}
	return nil
}
