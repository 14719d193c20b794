package apprun

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/session"
)

// pushBranches pushes every coder's work as a branch dixit/<issue>/<coder> of the workshop
// repository (wsURL), the full report as dixit/<issue>-report there too, and the PR branch
// dixit/<issue>-pr to the target (url): the picked implementation plus the vetted tests,
// placed as the test contract says. The target gets no other branch. It returns the PR
// branch.
func (j *job) pushBranches(ctx context.Context, out *session.Outcome, contract ci.Contract) (string, error) {
	issue, wsURL, url := j.issue, j.mirror.url, j.e.repoURL(j.issue.Owner, j.issue.Repo)
	token, err := j.token(ctx)
	if err != nil {
		return "", fmt.Errorf("token for %s: %w", issue, err)
	}
	ws, err := gitstate.Open(out.RunDir + "/workshop.git")
	if err != nil {
		return "", err
	}
	run := out.Summary.Run
	var specs []string
	commits := map[string]string{}
	for _, c := range out.Result.Coders {
		specs = append(specs, fmt.Sprintf("+refs/dixit/%s/coders/%s:refs/heads/dixit/%d/%s", run, c.Name, issue.Number, c.Name))
		commits[c.Name] = c.Commit
	}
	report, err := reportCommit(ws, out)
	if err != nil {
		return "", err
	}
	specs = append(specs, fmt.Sprintf("+%s:refs/heads/%s", report, reportBranch(issue)))
	pick := out.Summary.Comparison.Pick
	files, err := prFiles(ws, out, commits[pick.Coder])
	if err != nil {
		return "", err
	}
	places := ci.Places(contract, keptTests(out.Result.Vetted))
	for i, v := range out.Result.Vetted {
		files = append(files, gitstate.File{Path: places[i], Content: v.Content})
	}
	if err := ws.Push(ctx, wsURL, token, specs...); err != nil {
		return "", err
	}
	// Not dixit/<issue>: git cannot hold that branch beside dixit/<issue>/<coder>. The
	// commit sits on the run's base revision, so the branch shares the target's history
	// and its diff is the implementation and the tests.
	branch := fmt.Sprintf("dixit/%d-pr", issue.Number)
	msg := fmt.Sprintf("Dixit: %s's implementation of #%d with the %d vetted tests", pick.Coder, issue.Number, len(out.Result.Vetted))
	if _, err := gitstate.PushOnto(ctx, gitstate.Onto{URL: url, Token: token, Base: out.Base, Branch: branch, Message: msg}, files); err != nil {
		return "", err
	}
	return branch, nil
}

// prFiles is the picked implementation's tree. A scripted population's coder trees are
// written against the population's own base/, so on a real repository they are laid over
// the run's base: the files they do not hold (the repository's settings, its own tests)
// stay as they are instead of being deleted. A live coder's tree is the base as it left
// it, deletions included.
func prFiles(ws *gitstate.Workshop, out *session.Outcome, picked string) ([]gitstate.File, error) {
	files, err := ws.Files(picked)
	if err != nil || out.Summary.Agents != cast.KindScripted {
		return files, err
	}
	base, ok, err := ws.Ref("refs/dixit/" + out.Summary.Run + "/base")
	if err != nil || !ok {
		return files, err
	}
	baseFiles, err := ws.Files(base)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, f := range files {
		have[f.Path] = true
	}
	for _, f := range baseFiles {
		if !have[f.Path] {
			files = append(files, f)
		}
	}
	return files, nil
}

// reportBranch holds the full report in the workshop; a coder named "report" cannot
// collide with it.
func reportBranch(issue app.Issue) string { return fmt.Sprintf("dixit/%d-report", issue.Number) }

// reportCommit records the report files of the run in the workshop.
func reportCommit(ws *gitstate.Workshop, out *session.Outcome) (string, error) {
	var files []gitstate.File
	for name, path := range map[string]string{"report.md": out.Report, "report.html": out.HTML, "summary.json": out.JSON} {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read the report: %w", err)
		}
		files = append(files, gitstate.File{Path: name, Content: data})
	}
	tree, err := ws.WriteFiles(files)
	if err != nil {
		return "", err
	}
	ref := "refs/dixit/" + out.Summary.Run + "/report"
	old, _, err := ws.Ref(ref)
	if err != nil {
		return "", err
	}
	return ws.CommitAfter(ref, old, tree, "Dixit report of run "+out.Summary.Run)
}

// unreviewed is the PR body's warning: CI on this branch runs code no one has read yet.
const unreviewed = "**No one has reviewed this code yet: language models wrote it.** Dixit lets no coder change `.github/workflows/`, " +
	"but this repository's own pull-request workflows run it with their secrets unless they wait for a maintainer's approval; Dixit's docs/SECURITY.md says how.\n\n"

// prBody is the escalation PR's body: the issue it answers, what the branch holds, and
// the report, shortened to GitHub's limit with a link to the full one in the workshop.
func prBody(out *session.Outcome, issue app.Issue, workshop, reportURL string) string {
	var b strings.Builder
	res := out.Result
	if orchestrate.ReasonFor(res.Outcome).ClosesIssue {
		fmt.Fprintf(&b, "Closes #%d\n\n", issue.Number)
	} else {
		fmt.Fprintf(&b, "For #%d\n\n", issue.Number)
	}
	pick := out.Summary.Comparison.Pick
	if pick.Agreed {
		fmt.Fprintf(&b, "This branch is **%s**'s implementation with the %d vetted tests added. ", pick.Coder, len(res.Vetted))
	} else {
		fmt.Fprintf(&b, "No implementation passes every vetted test; this branch is **%s**'s, with the %d vetted tests added. ", pick.Coder, len(res.Vetted))
	}
	fmt.Fprintf(&b, "Every coder's work is on its own branch `dixit/%d/<coder>` of the private workshop repository `%s`; the full report is [there too](%s).\n\n",
		issue.Number, workshop, reportURL)
	b.WriteString(unreviewed)
	return report.Render(out.Summary, res, report.Options{Preface: b.String(), Limit: report.PRLimit, FullReport: reportURL, Decide: "/dixit "})
}
