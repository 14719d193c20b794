package apprun

import (
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/session"
)

// A "dixit:<protocol>" label on the issue overrides the protocol dixit.yml names.
func TestAProtocolLabelPicksTheProtocol(t *testing.T) {
	labels := func(names ...string) []*github.Label {
		var out []*github.Label
		for _, n := range names {
			out = append(out, &github.Label{Name: github.String(n)})
		}
		return out
	}
	e := &Executor{}
	assert.Equal(t, "", e.labelProtocol(labels("dixit", "bug")))
	assert.Equal(t, "critics", e.labelProtocol(labels("bug", "dixit", "dixit:critics")))
	assert.Equal(t, "", e.labelProtocol(labels("dixit:vote")))
	custom := &Executor{Label: "vet"}
	assert.Equal(t, "tdg", custom.labelProtocol(labels("vet:tdg")))
	assert.Equal(t, "", custom.labelProtocol(labels("dixit:tdg")))
}

// Two repositories' issues never share a run (and so never a journal, an inbox of
// decisions, or workshop refs), however their names are split by hyphens.
func TestRunIDsDoNotCollide(t *testing.T) {
	seen := map[string]app.Issue{}
	for _, i := range []app.Issue{
		{Owner: "acme", Repo: "corp-api", Number: 3}, {Owner: "acme-corp", Repo: "api", Number: 3},
		{Owner: "acme", Repo: "api-3", Number: 4}, {Owner: "acme", Repo: "api", Number: 34},
		{Owner: "acme", Repo: "api_3", Number: 4}, {Owner: "acme", Repo: ".github", Number: 1},
	} {
		id := RunID(i)
		other, dup := seen[id]
		assert.False(t, dup, "%v and %v share run %s", i, other, id)
		seen[id] = i
		assert.NotContains(t, id, "..", "a valid git ref component")
		assert.Equal(t, id, VetRunID(i)[:len(id)])
	}
	assert.Equal(t, RunID(app.Issue{Owner: "Acme", Repo: "API", Number: 1}), RunID(app.Issue{Owner: "acme", Repo: "api", Number: 1}),
		"GitHub's names are case-insensitive")
}

// The escalation PR's body closes the issue the run answers and nothing else, mentions no
// one from a human's words, and warns that its code is unreviewed.
func TestThePRBodyClosesOnlyItsIssue(t *testing.T) {
	said := "@team Closes #2, fixes o/r#3"
	s := runfile.Summary{Run: "r", Outcome: orchestrate.TestersExhausted, Reason: "done", Accepted: "ann",
		Coders: []runfile.Coder{{Name: "ann"}, {Name: "bob"}}, Comparison: &runfile.Comparison{},
		Decisions: []orchestrate.AppliedDecision{{Decision: orchestrate.Decision{ID: "1", Verb: orchestrate.DecideAccept,
			Args: []string{"ann"}, By: "maria", Reason: said}}},
		SpecComments: []string{"<!-- " + said + " -->"}}
	s.Comparison.Pick = report.Choose(s, *s.Comparison)
	out := &session.Outcome{Summary: s, Result: &orchestrate.Result{Outcome: orchestrate.TestersExhausted}}
	body := prBody(out, app.Issue{Owner: "o", Repo: "r", Number: 7}, "o/r-dixit", "https://example.com/report.md")

	assert.True(t, strings.HasPrefix(body, "Closes #7\n"), "the bot's own keyword stays live")
	assert.Contains(t, body, "No one has reviewed this code yet")
	assert.Contains(t, body, "docs/SECURITY.md")
	assert.NotContains(t, body, "@team")
	assert.NotContains(t, body, "Closes #2")
	assert.NotContains(t, body, "fixes o/r#3")
	assert.Contains(t, body, "@\u200bteam C\u200bloses #2, f\u200bixes o/r#3", "the words read the same")
	assert.Contains(t, body, "1 HTML comment was removed from the spec")
}
