package apprun

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ghreport"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/repoconfig"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/session"
)

// VetCheck names the check run a vetted pull request's head gets.
const VetCheck = "Dixit vet"

// VetRunID names a pull request's vetting run; `/dixit vet --fresh` gets a run of its own.
func VetRunID(pr app.Issue) string {
	id := RunID(pr) + "-vet"
	if pr.Fresh != 0 {
		id += "-f" + strconv.FormatInt(pr.Fresh, 10)
	}
	return id
}

// driveVet vets a pull request (docs/vet.md): a Dixit run builds the spec from the base
// branch, then the pull request's head is judged on the run's tests, and the verdict
// becomes a check run on that head and a review. A head pushed while it goes is judged
// next against the same run, so new commits cost the judge only, never the model.
func (j *job) driveVet(ctx context.Context) error {
	e, gh, pr, dir, log := j.e, j.gh, j.issue, j.dir, j.log
	cfg := repoconfig.ForVetting(ctx, gh, pr.Owner, pr.Repo)
	if cfg.Err != nil {
		return fmt.Errorf("settings of %s: %w", pr, cfg.Err)
	}
	judged := ""
	for turn := 0; ; turn++ {
		pull, _, err := gh.PullRequests.Get(ctx, pr.Owner, pr.Repo, pr.Number)
		if err != nil {
			return fmt.Errorf("read %s: %w", pr, err)
		}
		if pull.GetState() != "open" {
			log.Info("apprun: the pull request is closed; nothing to vet")
			return nil
		}
		if pull.GetHead().GetSHA() == judged {
			return nil
		}
		if turn >= maxVetTurns {
			// GitHub's refs/pull/N/head still differs from the head it reports: the next
			// push (or /dixit vet) judges it.
			log.Warn("apprun: the pull request's head ref lags its head; stopping for now", "api_head", pull.GetHead().GetSHA(), "fetched", judged)
			return nil
		}
		if turn > 0 { // a new head, or the ref lagging the API: give GitHub a moment
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(vetRefLag):
			}
		}
		spec, source, err := e.vetSpec(ctx, gh, pr, pull, dir)
		if err != nil {
			return err
		}
		if spec == "" {
			return tellOnce(ctx, gh, pr, dir, "Dixit cannot vet this pull request: it names no issue it closes (`Fixes #N`) and its description is empty, so there is no spec to build independent implementations from. Link the issue, then `/dixit vet`.")
		}
		if judged, err = j.vetHead(ctx, pull, vetSpec{cfg: cfg, text: spec, source: source}); err != nil {
			return err
		}
	}
}

// A vetting judges at most maxVetTurns heads in one go, waiting vetRefLag before each
// after the first: GitHub updates refs/pull/N/head a little after a push.
const (
	maxVetTurns = 10
	vetRefLag   = 2 * time.Second
)

// vetSpec is what a vetting builds: the settings from the default branch, the spec's
// text, and where the text came from, for the review.
type vetSpec struct {
	cfg          repoconfig.Result
	text, source string
}

// vetHead judges the pull request's current head against the run, building the run first
// if it is not built yet, and publishes the verdict. It returns the commit it judged.
func (j *job) vetHead(ctx context.Context, pull *github.PullRequest, spec vetSpec) (string, error) {
	pr, run, log, settings := j.issue, j.run, j.log, spec.cfg.Settings
	token, err := j.token(ctx)
	if err != nil {
		return "", fmt.Errorf("token for %s: %w", pr, err)
	}
	url := j.e.repoURL(pr.Owner, pr.Repo)
	base, baseHead, err := gitstate.FetchHead(ctx, url, pull.GetBase().GetRef(), token)
	if err != nil {
		return "", err
	}
	// GitHub keeps every pull request's head, forks included, as refs/pull/N/head of the
	// base repository. The commit fetched is the one judged, whatever the API said.
	files, head, err := gitstate.FetchHead(ctx, url, fmt.Sprintf("refs/pull/%d/head", pr.Number), token)
	if err != nil {
		return "", err
	}
	patch, err := gitstate.SnapshotOf(files)
	if err != nil {
		return "", fmt.Errorf("the head of %s: %w", pr, err)
	}
	pub, err := j.publisher(ctx, spec.cfg, ghreport.Target{HeadSHA: head, CheckName: VetCheck}, "github-"+head+".json")
	if err != nil {
		return "", err
	}
	h := j.host(ctx, pub)
	defer h.close()
	opts := j.options(h)
	opts.Patch = patch
	out, err := session.RunInput(ctx, opts, session.Input{
		Spec: spec.text, Files: base, Head: baseHead, Settings: settings, Source: pr.String(),
	})
	if err != nil {
		return "", err
	}
	if err := j.mirror.push(ctx); err != nil {
		return "", fmt.Errorf("mirror %s to the workshop: %w", pr, err)
	}
	v := out.Summary.Vet
	if v == nil {
		return "", fmt.Errorf("vet %s: the run gave no verdict on the patch", pr)
	}
	// A run can outlast an installation token (one hour): take a current one.
	if token, err = j.token(ctx); err != nil {
		return "", fmt.Errorf("token for %s: %w", pr, err)
	}
	// A review shows the suite. A head pushed after that may have been fitted to those
	// tests, so passing them no longer counts as success: only a fresh run's tests would.
	prev, err := ghreport.PreviousReview(ctx, j.gh, ghreport.PullRef{Owner: pr.Owner, Repo: pr.Repo, Number: pr.Number})
	if err != nil {
		return "", err
	}
	if disclosed(prev, run, head) && v.Withdraw(fmt.Sprintf("The patch passes all %d vetted tests, but this pull request's review showed them before this commit was pushed, so passing them is no longer independent evidence; `/dixit vet --fresh` judges it on tests nobody has shown.", len(v.Vetted))) {
		if _, err := report.WriteVet(out.RunDir, out.Summary, out.Result); err != nil { // the full report says so too
			return "", err
		}
	}
	reportURL, err := pushVetReport(ctx, out, pr, token, j.mirror.url)
	if err != nil {
		return "", fmt.Errorf("push the report of %s: %w", pr, err)
	}
	preface := vetPreface(out, vetShown{run: run, head: head, source: spec.source, workshop: j.workshop, reportURL: reportURL})
	keep := keepTests(out.Result.Vetted, settings.Test)
	if len(keep) > report.PRLimit/2 { // the tests would crowd out the verdict: link them
		keep = fmt.Sprintf("The %d vetted tests are in [the full report](%s), to keep as regression tests.\n", len(out.Result.Vetted), reportURL)
	}
	body := report.VetReview(out.Summary, preface, report.PRLimit-len([]rune(keep))-1000, reportURL) + keep
	title := fmt.Sprintf("%s: passes %d of %d vetted tests", v.Conclusion, v.Passes, len(v.Vetted))
	if err := pub.Complete(ctx, v.Conclusion, title, v.Why+"\n\nSpec: "+spec.source+". The full verdict is in the review.", body); err != nil {
		return "", err
	}
	if _, err := ghreport.Review(ctx, j.gh, ghreport.PullRef{Owner: pr.Owner, Repo: pr.Repo, Number: pr.Number}, body); err != nil {
		return "", err
	}
	log.Info("apprun: pull request vetted", "head", head, "conclusion", v.Conclusion)
	return head, nil
}

// closing finds the issues a pull request's description says it closes, as GitHub reads
// closing keywords: "Fixes #12", "closes owner/repo#12", "resolves https://…/issues/12".
var closing = regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+` +
	`(?:(?:https?://[^\s/]+/([\w.-]+)/([\w.-]+)/issues/)|(?:([\w.-]+)/([\w.-]+))?#)(\d+)\b`)

// maxClosing bounds the issues looked up for one pull request: its description is
// written by the patch's author.
const maxClosing = 5

// vetSpec is what the independent coders build: the issue the pull request closes, else
// the pull request's own title and description; source says which, for the review. A
// run keeps the spec it started with (the session pins it), and the source it named then.
func (e *Executor) vetSpec(ctx context.Context, gh *github.Client, pr app.Issue, pull *github.PullRequest, dir string) (string, string, error) {
	spec, source, lookups := "", "", 0
	for _, m := range closing.FindAllStringSubmatch(pull.GetBody(), 50) {
		if lookups == maxClosing {
			break
		}
		owner, repo := cmp.Or(m[1], m[3]), cmp.Or(m[2], m[4])
		if (owner != "" || repo != "") && (!strings.EqualFold(owner, pr.Owner) || !strings.EqualFold(repo, pr.Repo)) {
			continue // another repository's issue: its text is not ours to read
		}
		n, err := strconv.Atoi(m[5])
		if err != nil || n == pr.Number {
			continue
		}
		lookups++
		is, resp, err := gh.Issues.Get(ctx, pr.Owner, pr.Repo, n)
		if err != nil {
			if resp != nil && (resp.StatusCode == 404 || resp.StatusCode == 410) {
				continue
			}
			return "", "", fmt.Errorf("read #%d, which %s closes: %w", n, pr, err)
		}
		// A moved issue answers from its new repository: its text is not this one's.
		if is.IsPullRequest() || !strings.HasSuffix(strings.ToLower(is.GetRepositoryURL()), strings.ToLower("/repos/"+pr.Owner+"/"+pr.Repo)) {
			continue
		}
		spec = "# " + is.GetTitle() + "\n\n" + is.GetBody()
		phrase := strings.NewReplacer("`", "", "@", "", "<", "", ">", "", "[", "", "]", "").Replace(strings.Join(strings.Fields(m[0]), " "))
		if len(phrase) > 120 {
			phrase = phrase[:120]
		}
		source = fmt.Sprintf("issue #%d, which this pull request closes (`%s`)", n, phrase)
		break
	}
	if spec == "" && strings.TrimSpace(pull.GetBody()) != "" {
		spec = "# " + pull.GetTitle() + "\n\n" + pull.GetBody()
		source = "this pull request's description (it names no issue it closes)"
	}
	// The first source named stays: the run's spec is pinned to it (the session keeps the
	// spec itself), so a description emptied since changes nothing.
	path := filepath.Join(dir, "spec-source")
	if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
		if spec == "" {
			spec = "(the run's pinned spec)"
		}
		return spec, string(data), nil
	}
	if source != "" {
		if err := os.WriteFile(path, []byte(source), 0o644); err != nil {
			return "", "", fmt.Errorf("state of %s: %w", pr, err)
		}
	}
	return spec, source, nil
}

// pushVetReport records the full report in the workshop (branch dixit/<pr>-report) and
// returns its address.
func pushVetReport(ctx context.Context, out *session.Outcome, pr app.Issue, token, wsURL string) (string, error) {
	ws, err := gitstate.Open(out.RunDir + "/workshop.git")
	if err != nil {
		return "", err
	}
	commit, err := reportCommit(ws, out)
	if err != nil {
		return "", err
	}
	if err := ws.Push(ctx, wsURL, token, fmt.Sprintf("+%s:refs/heads/%s", commit, reportBranch(pr))); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s/blob/%s/report.md", strings.TrimSuffix(wsURL, ".git"), reportBranch(pr)), nil
}

// suiteShown marks a review with the run whose suite it shows and the head it judged.
func suiteShown(run, head string) string {
	return fmt.Sprintf("<!-- dixit:vet run=%s head=%s -->", run, head)
}

// disclosed tells whether an earlier review showed this run's suite for another head.
func disclosed(prev, run, head string) bool {
	return strings.Contains(prev, "run="+run+" ") && !strings.Contains(prev, suiteShown(run, head))
}

// vetShown is what a review names: the run, the head judged, the spec's source, and where
// the workshop and the full report are.
type vetShown struct {
	run, head, source   string
	workshop, reportURL string
}

// vetPreface says what was judged against what, before the verdict.
func vetPreface(out *session.Outcome, shown vetShown) string {
	s := out.Summary
	run, head, source, workshop, reportURL := shown.run, shown.head, shown.source, shown.workshop, shown.reportURL
	var b strings.Builder
	b.WriteString(suiteShown(run, head) + "\n")
	fmt.Fprintf(&b, "### Dixit vetted %s\n\n", shortHash(head))
	fmt.Fprintf(&b, "**Spec:** %s. %d independent coders built it from the base revision without seeing this patch, and %d testers proposed tests none of the coders saw; ",
		source, len(s.Coders), len(s.Testers))
	fmt.Fprintf(&b, "a test is vetted when most coders pass it but not all. The run ended **%s** in round %d. ", s.Outcome, s.Rounds)
	fmt.Fprintf(&b, "Each coder's work is in the private workshop `%s`; the full report is [there](%s).\n\n", workshop, reportURL)
	if s.Agents == "scripted" {
		fmt.Fprintf(&b, "> Agents: a **scripted population**; no LLM was called.\n\n")
	}
	return b.String()
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// keepTests offers the vetted suite as a commit to apply: a patch adding each test where
// the test contract puts it, so the team keeps them as regression tests.
func keepTests(vetted []orchestrate.Vetted, contract ci.Contract) string {
	if len(vetted) == 0 {
		return ""
	}
	var d strings.Builder
	places := ci.Places(contract, keptTests(vetted))
	for i, v := range vetted {
		path := places[i]
		lines := strings.SplitAfter(string(v.Content), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		fmt.Fprintf(&d, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
		for _, l := range lines {
			d.WriteString("+" + l)
			if !strings.HasSuffix(l, "\n") {
				d.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	fence := "```"
	for strings.Contains(d.String(), fence) {
		fence += "`"
	}
	return fmt.Sprintf("<details><summary>Keep the %d vetted tests: a commit to apply with <code>git apply</code></summary>\n\n%sdiff\n%s%s\n\n</details>\n",
		len(vetted), fence, d.String(), fence)
}

// keptTests are the vetted tests as the repository keeps them: test N has the id tN.
func keptTests(vetted []orchestrate.Vetted) []ci.Test {
	out := make([]ci.Test, len(vetted))
	for i, v := range vetted {
		out[i] = ci.Test{ID: fmt.Sprintf("t%d", v.Number), Path: v.Path, Content: v.Content, Select: v.Select}
	}
	return out
}
