package apprun

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/localrun"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
)

// consensus picks the implementation the PR is built from: the first coder, in the
// configured order, whose last run of the vetted suite passed every test; the first
// coder when none did (the PR then says so).
func consensus(res *orchestrate.Result) (orchestrate.CoderState, bool) {
	passing := map[string]bool{}
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvSuite {
			passing[ev.Agent] = ev.Passed == len(ev.Cells)
		}
	}
	for _, c := range res.Coders {
		if passing[c.Name] || len(res.Vetted) == 0 {
			return c, true
		}
	}
	return res.Coders[0], false
}

// pushBranches pushes every coder's work as a branch dixit/<issue>/<coder> of the workshop
// repository (wsURL), and the PR branch dixit/<issue>-pr to the target (url): the chosen
// implementation plus the vetted tests, placed as the test contract says. The target gets
// no other branch. It returns the PR branch and the chosen coder.
func pushBranches(ctx context.Context, out *localrun.Outcome, issue app.Issue, contract ci.Contract, url, token, wsURL string) (string, orchestrate.CoderState, bool, error) {
	ws, err := gitstate.Open(out.RunDir + "/workshop.git")
	if err != nil {
		return "", orchestrate.CoderState{}, false, err
	}
	run := out.Summary.Run
	var specs []string
	for _, c := range out.Result.Coders {
		specs = append(specs, fmt.Sprintf("+refs/dixit/%s/coders/%s:refs/heads/dixit/%d/%s", run, c.Name, issue.Number, c.Name))
	}
	chosen, agreed := consensus(out.Result)
	files, err := ws.Files(chosen.Commit)
	if err != nil {
		return "", chosen, agreed, err
	}
	for _, v := range out.Result.Vetted {
		files = append(files, gitstate.File{Path: strings.ReplaceAll(contract.Path, "{id}", fmt.Sprintf("t%d", v.Number)), Content: v.Content})
	}
	tree, err := ws.WriteFiles(files)
	if err != nil {
		return "", chosen, agreed, err
	}
	ref := "refs/dixit/" + run + "/pr"
	msg := fmt.Sprintf("Dixit: %s's implementation of #%d with the %d vetted tests", chosen.Name, issue.Number, len(out.Result.Vetted))
	if _, err := ws.CommitAfter(ref, chosen.Commit, tree, msg); err != nil {
		return "", chosen, agreed, err
	}
	// Not dixit/<issue>: git cannot hold that branch beside dixit/<issue>/<coder>.
	branch := fmt.Sprintf("dixit/%d-pr", issue.Number)
	if err := ws.Push(ctx, wsURL, token, specs...); err != nil {
		return "", chosen, agreed, err
	}
	if err := ws.Push(ctx, url, token, fmt.Sprintf("+%s:refs/heads/%s", ref, branch)); err != nil {
		return "", chosen, agreed, err
	}
	return branch, chosen, agreed, nil
}

// prBody is the first version of the escalation PR's body: the reason, and the evidence
// a reviewer needs to decide from the PR alone.
func prBody(out *localrun.Outcome, issue app.Issue, chosen string, agreed bool, workshop string) string {
	var b strings.Builder
	res := out.Result
	if res.Outcome == orchestrate.TestersExhausted {
		fmt.Fprintf(&b, "Closes #%d\n\n", issue.Number)
	} else {
		fmt.Fprintf(&b, "For #%d\n\n", issue.Number)
	}
	fmt.Fprintf(&b, "**%s**: %s.\n\n", res.Outcome, res.Reason)
	if agreed {
		fmt.Fprintf(&b, "This branch is **%s**'s implementation, which passes every vetted test, with the %d vetted tests added. ", chosen, len(res.Vetted))
	} else {
		fmt.Fprintf(&b, "No implementation passes every vetted test; this branch is **%s**'s. ", chosen)
	}
	fmt.Fprintf(&b, "Every coder's work is on its own branch `dixit/%d/<coder>` of the private workshop repository `%s`.\n\n", issue.Number, workshop)
	b.WriteString(report.Markdown(out.Summary, res))
	return b.String()
}
