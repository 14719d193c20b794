// Package ghreport shows a run on GitHub while it goes: one status comment on the issue,
// edited in place each round, and a check run that completes with the outcome. A
// restarted run finds its comment and check run again instead of adding new ones.
package ghreport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

var _ orchestrate.Reporter = (*Publisher)(nil)

// Target is where a run is shown.
type Target struct {
	Owner, Repo string
	Issue       int
	HeadSHA     string // the commit the check run is attached to: the base revision, or a pull request's head
	Run         string
	CheckName   string // "Dixit" when empty
	// Unsandboxed marks a server configured with sandbox: none; every status comment and
	// check run then says so (NoSandbox).
	Unsandboxed bool
}

// NoSandbox is the line a server without a sandbox puts on every status comment and
// check run: whoever reads a verdict must know that nothing isolated the code under test.
const NoSandbox = "> ⚠ This server runs tests without a sandbox (`sandbox: none` in its configuration)."

// warn puts NoSandbox at the top of text, or after its first line when keep is set (the
// status comment's marker, which finds it again, must stay first).
func (t Target) warn(text string, keep bool) string {
	if !t.Unsandboxed {
		return text
	}
	if first, rest, ok := strings.Cut(text, "\n"); keep && ok {
		return first + "\n" + NoSandbox + "\n\n" + rest
	}
	return NoSandbox + "\n\n" + text
}

func (t Target) checkName() string {
	if t.CheckName == "" {
		return "Dixit"
	}
	return t.CheckName
}

// ids are persisted so a restart edits the same comment and check run.
type ids struct {
	Comment  int64 `json:"comment"`
	CheckRun int64 `json:"check_run"`
}

// Publisher keeps the status comment and check run up to date. GitHub errors while the
// run goes are logged, not fatal: the next round publishes again.
type Publisher struct {
	gh     *github.Client
	t      Target
	status *report.Status
	file   string // where ids are kept
	log    *slog.Logger

	mu   sync.Mutex
	ids  ids
	last string // the body last published: an unchanged one is not sent again
	// createFailed: creating the comment failed, perhaps after GitHub created it.
	createFailed bool
}

// Options are what a publisher needs besides where it shows the run.
type Options struct {
	Coders, Testers []string // the run's agents, for the status comment's tables
	StateFile       string   // where the comment's and check run's ids are kept across restarts
	Log             *slog.Logger
}

// New finds or creates the status comment and the check run of a run.
func New(ctx context.Context, gh *github.Client, t Target, opt Options) (*Publisher, error) {
	logger, stateFile := opt.Log, opt.StateFile
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &Publisher{gh: gh, t: t, status: report.NewStatus(t.Run, opt.Coders, opt.Testers), file: stateFile, log: logger}
	if data, err := os.ReadFile(stateFile); err == nil {
		if err := json.Unmarshal(data, &p.ids); err != nil {
			return nil, fmt.Errorf("read %s: %w", stateFile, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", stateFile, err)
	}
	if p.ids.Comment == 0 {
		if err := p.findComment(ctx); err != nil {
			return nil, err
		}
	}
	if p.ids.CheckRun == 0 && t.HeadSHA != "" {
		if err := p.findCheckRun(ctx); err != nil {
			return nil, err
		}
	}
	if p.ids.CheckRun == 0 && t.HeadSHA != "" {
		cr, _, err := gh.Checks.CreateCheckRun(ctx, t.Owner, t.Repo, github.CreateCheckRunOptions{
			Name: t.checkName(), HeadSHA: t.HeadSHA, Status: github.String("in_progress"), ExternalID: github.String(t.Run),
			Output: &github.CheckRunOutput{Title: github.String("Dixit is running"), Summary: github.String(t.warn(fmt.Sprintf("Run `%s` for #%d.", t.Run, t.Issue), false))},
		})
		if err != nil {
			return nil, fmt.Errorf("create check run on %s/%s: %w", t.Owner, t.Repo, err)
		}
		p.ids.CheckRun = cr.GetID()
	}
	return p, p.save()
}

// Scanned shows, beside each tampered coder in the status comment, where the tamper
// scan of its change points first; the next publish (Finish) shows it.
func (p *Publisher) Scanned(c *runfile.Comparison) { p.status.Scanned(c) }

// CountMinutes shows the GitHub Actions minutes minutes reports in the status comment.
func (p *Publisher) CountMinutes(minutes func() int) { p.status.CountMinutes(minutes) }

// findComment looks for an earlier status comment of this run by its marker.
func (p *Publisher) findComment(ctx context.Context) error {
	marker := report.Marker(p.t.Run)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := p.gh.Issues.ListComments(ctx, p.t.Owner, p.t.Repo, p.t.Issue, opts)
		if err != nil {
			return fmt.Errorf("list comments of %s/%s#%d: %w", p.t.Owner, p.t.Repo, p.t.Issue, err)
		}
		for _, c := range comments {
			// Only a bot's comment: a person quoting the marker does not take the status over.
			if c.GetUser().GetType() == "Bot" && strings.HasPrefix(c.GetBody(), marker) {
				p.ids.Comment = c.GetID()
				return nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// findCheckRun looks for this run's check run on the head commit, by its external id:
// a server that took the run over from another (or lost its disk) completes the same one.
func (p *Publisher) findCheckRun(ctx context.Context) error {
	opts := &github.ListCheckRunsOptions{CheckName: github.String(p.t.checkName()), ListOptions: github.ListOptions{PerPage: 100}}
	for {
		res, resp, err := p.gh.Checks.ListCheckRunsForRef(ctx, p.t.Owner, p.t.Repo, p.t.HeadSHA, opts)
		if err != nil {
			return fmt.Errorf("list check runs of %s/%s@%s: %w", p.t.Owner, p.t.Repo, p.t.HeadSHA, err)
		}
		for _, cr := range res.CheckRuns {
			if cr.GetExternalID() == p.t.Run {
				p.ids.CheckRun = cr.GetID()
				return nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

func (p *Publisher) save() error {
	data, err := json.Marshal(p.ids)
	if err != nil {
		return err
	}
	tmp := p.file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("save %s: %w", p.file, err)
	}
	return os.Rename(tmp, p.file)
}

// Event follows the run and publishes the status at each round and at the end.
func (p *Publisher) Event(ctx context.Context, ev orchestrate.Event) {
	p.status.Event(ctx, ev)
	if ev.Kind != orchestrate.EvRound && ev.Kind != orchestrate.EvEscalate {
		return
	}
	if err := p.publish(ctx); err != nil {
		p.log.Warn("ghreport: status not published; the next round tries again", "github_issue", p.t.Issue, "err", err)
	}
}

// publish creates the status comment once, then edits it.
func (p *Publisher) publish(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	body := p.t.warn(p.status.Markdown(), true)
	if body == p.last {
		return nil
	}
	if p.ids.Comment == 0 && p.createFailed {
		// GitHub may have created it and lost only the answer: look before creating again.
		if err := p.findComment(ctx); err != nil {
			return err
		}
		p.createFailed = false
		if p.ids.Comment != 0 {
			if err := p.save(); err != nil {
				return err
			}
		}
	}
	if p.ids.Comment == 0 {
		c, _, err := p.gh.Issues.CreateComment(ctx, p.t.Owner, p.t.Repo, p.t.Issue, &github.IssueComment{Body: github.String(body)})
		if err != nil {
			p.createFailed = true
			return fmt.Errorf("create status comment: %w", err)
		}
		p.ids.Comment = c.GetID()
		if err := p.save(); err != nil {
			return err
		}
	} else if _, _, err := p.gh.Issues.EditComment(ctx, p.t.Owner, p.t.Repo, p.ids.Comment, &github.IssueComment{Body: github.String(body)}); err != nil {
		return fmt.Errorf("edit status comment: %w", err)
	}
	p.last = body
	return nil
}

// Finish publishes the final status and completes the check run with the outcome. An
// escalation asks for a human, so the conclusion is neutral, never success.
func (p *Publisher) Finish(ctx context.Context, res *orchestrate.Result) error {
	p.status.Stopped(res.Standing)
	title := fmt.Sprintf("%s: %s after %s", res.Outcome, words.Count(len(res.Vetted), "vetted test", "vetted tests"), words.Count(res.Rounds, "round", "rounds"))
	if r := orchestrate.ReasonFor(res.Outcome); r.Evidence == orchestrate.EvidencePreflight {
		title = fmt.Sprintf("%s: %s", res.Outcome, r.Title) // no test ran: counts say nothing
	}
	if err := p.Complete(ctx, "neutral", title, res.Reason+".", ""); err != nil {
		return err
	}
	p.offerOrLog(ctx, res.Standing) // the decisions that fit, as buttons (actions.go)
	return nil
}

// Complete publishes the final status and completes the check run with a conclusion
// ("success", "failure", "neutral"), a title, a summary and an optional longer text.
func (p *Publisher) Complete(ctx context.Context, conclusion, title, summary, text string) error {
	if err := p.publish(ctx); err != nil {
		return err
	}
	if p.ids.CheckRun == 0 {
		return nil
	}
	out := &github.CheckRunOutput{Title: github.String(title), Summary: github.String(cut(p.t.warn(summary, false), checkLimit))}
	if text != "" {
		out.Text = github.String(cut(text, checkLimit))
	}
	_, _, err := p.gh.Checks.UpdateCheckRun(ctx, p.t.Owner, p.t.Repo, p.ids.CheckRun, github.UpdateCheckRunOptions{
		Name: p.t.checkName(), Status: github.String("completed"), Conclusion: github.String(conclusion), Output: out,
	})
	if err != nil {
		return fmt.Errorf("complete check run: %w", err)
	}
	return nil
}

// checkLimit keeps a check run's summary and text under GitHub's 65,535 characters.
const checkLimit = 65_000

// cut shortens s to at most limit characters, at a line, saying so.
func cut(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	const note = "\n\n… cut here to fit GitHub's limit.\n"
	text := string(r[:max(0, limit-len([]rune(note)))])
	if i := strings.LastIndexByte(text, '\n'); i > 0 {
		text = text[:i]
	}
	return text + note
}

// Inert makes text from outside (an error quoting what a person wrote) safe to post in a
// comment: no mention, link or markup of its own takes effect.
func Inert(s string) string { return report.Inert(s) }
