package apprun

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/webhook"
)

const percent = "../../examples/percent"

// comment sends a signed issue_comment.created delivery: body by user on issue or pull
// request number, as comment id.
func (w *world) comment(t *testing.T, s *server, number int, onPR bool, id int64, user, body string) {
	file := "issue_comment.created.json"
	if onPR {
		file = "issue_comment.created.pr.json"
	}
	payload, err := os.ReadFile("../webhook/testdata/" + file)
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(payload, &p))
	p["installation"] = map[string]any{"id": 7}
	p["issue"].(map[string]any)["number"] = number
	c := p["comment"].(map[string]any)
	c["id"], c["body"], c["user"] = id, body, map[string]any{"login": user, "type": "User"}
	data, err := json.Marshal(p)
	require.NoError(t, err)
	req, err := webhook.SignedRequest("/webhook", []byte("a-test-webhook-secret"), "issue_comment", fmt.Sprintf("c-%d", id), data)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	s.hook.ServeHTTP(rec, req)
	require.Less(t, rec.Code, 300, rec.Body.String())
}

// statusSays waits until the status comment (its first comment) holds all of parts.
func (w *world) statusSays(t *testing.T, parts ...string) string {
	var status string
	require.Eventually(t, func() bool {
		c := w.gh.State.Comments("Codertocat", "Hello-World", 1)
		if len(c) == 0 {
			return false
		}
		status = c[0]
		for _, p := range parts {
			if !strings.Contains(status, p) {
				return false
			}
		}
		return true
	}, 4*time.Minute, 100*time.Millisecond, "the status comment says %q; it says:\n%s", parts, status)
	return status
}

// replyTo waits for the bot's reply to a command: the newest comment on number holding part.
func (w *world) replyTo(t *testing.T, number int, part string) string {
	var reply string
	require.Eventually(t, func() bool {
		c := w.gh.State.Comments("Codertocat", "Hello-World", number)
		for i := len(c) - 1; i >= 0; i-- {
			if strings.Contains(c[i], part) {
				reply = c[i]
				return true
			}
		}
		return false
	}, time.Minute, 50*time.Millisecond, "a reply holding %q on #%d", part, number)
	return reply
}

// TestHumansDecideAndTheRunGoesOnOnGitHub: examples/percent on the fake GitHub stops
// three times. Each stop's status comment offers the decisions that fit, a reader's
// command is refused, and a writer's carries the run on: `/dixit wake` revives the
// sleeping tester, `/dixit replace dee` brings in a fresh coder that catches up, and
// `/dixit drop t2 …`, written on the escalation pull request and followed at once by a
// restart of the server, is applied exactly once; the run ends TESTERS_EXHAUSTED, and
// the pull request shows every decision.
func TestHumansDecideAndTheRunGoesOnOnGitHub(t *testing.T) {
	t.Parallel()
	w := newWorldOf(t, percent)
	w.gh.State.SetPermission("Codertocat", "Hello-World", "maria", "write")
	w.gh.State.SetPermission("Codertocat", "Hello-World", "reader", "read")
	a := w.server(t, "server-a", shareResults)
	w.deliver(t, a, "d1")
	w.statusSays(t, "### Dixit: ALL_TESTERS_HIBERNATED", "- `/dixit wake`", "- `/dixit continue`", "- `/dixit accept <coder>` — coders: ann, bob, cy, dee, eve")
	require.Equal(t, app.Finished, w.waitEnd(t, a).State)

	w.comment(t, a, 1, false, 101, "reader", "/dixit wake")
	assert.Contains(t, w.replyTo(t, 1, "@reader"), "only people with write access")
	w.comment(t, a, 1, false, 102, "maria", "/dixit drop t1 it is wrong")
	assert.Contains(t, w.replyTo(t, 1, "not in the vetted suite"), "I did not change anything")
	w.comment(t, a, 1, false, 150, "maria", "/dixit drop @team it is wrong")
	refusal := w.replyTo(t, 1, "team")
	assert.Contains(t, refusal, "I did not change anything")
	assert.NotContains(t, refusal, " @team", "the commenter's words echoed in a refusal ping no one")

	w.comment(t, a, 1, false, 103, "maria", "/dixit wake")
	assert.Contains(t, w.replyTo(t, 1, "Noted: `wake`"), "goes on from where it stopped")
	w.statusSays(t, "### Dixit: CODERS_STUCK", "coder dee", "- `/dixit replace <coder>` — coders: ann, bob, cy, dee, eve")
	require.Equal(t, app.Finished, w.waitEnd(t, a).State)

	w.comment(t, a, 1, false, 104, "maria", "/dixit replace dee")
	w.statusSays(t, "### Dixit: CODERS_STUCK", "coder eve", "| dee_2 | ACC ACC |", "- `/dixit drop <test> <reason>` — tests: t1 (ivy-3), t2 (ivy-4)")
	require.Equal(t, app.Finished, w.waitEnd(t, a).State)

	prs, _, err := w.gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	require.Len(t, prs, 1, "the escalation pull request")
	pr := prs[0].GetNumber()
	assert.Contains(t, prs[0].GetBody(), "## What now")

	// On the pull request, then the server stops at once and starts again on its disk.
	w.comment(t, a, pr, true, 105, "maria", `/dixit drop t2 "wrong expectation: halves round away from zero"`)
	assert.Contains(t, w.replyTo(t, pr, "Noted"), "The run of #1 goes on")
	require.NoError(t, a.runs.Shutdown(context.Background()))
	require.NoError(t, a.hook.Shutdown(context.Background()))
	a = w.server(t, "server-a", shareResults)
	w.statusSays(t, "### Dixit: TESTERS_EXHAUSTED")
	require.Equal(t, app.Finished, w.waitEnd(t, a).State)

	var decisions []string
	for _, e := range w.journal(t) {
		if strings.Contains(e, `"effect":"decide"`) {
			decisions = append(decisions, e)
		}
	}
	require.Len(t, decisions, 3, "each decision journalled once")
	assert.Contains(t, decisions[2], `"id":"comment-105"`)
	prs, _, err = w.gh.Client(nil).PullRequests.List(context.Background(), "Codertocat", "Hello-World", nil)
	require.NoError(t, err)
	require.Len(t, prs, 1, "the same pull request, updated")
	body := prs[0].GetBody()
	assert.True(t, strings.HasPrefix(body, "Closes #1"), "TESTERS_EXHAUSTED closes the issue")
	for _, part := range []string{"## Decisions", "| maria |", "wake", "replace dee", "drop t2: wrong expectation: halves round away from zero"} {
		assert.Contains(t, body, part)
	}
	assert.Contains(t, body, "- `/dixit continue`", "a human may still ask for more rounds")
	notes := strings.Join(w.gh.State.Comments("Codertocat", "Hello-World", pr), "\n")
	assert.Contains(t, notes, "@maria decided on #1: `replace dee`", "a decision on the issue shows in the pull request's timeline")
	assert.Contains(t, notes, "@maria Noted: `drop t2 (wrong expectation: halves round away from zero)`")
	status := w.gh.State.Comments("Codertocat", "Hello-World", 1)
	assert.Len(t, status, 6, "the status comment and five replies: no second status comment")
	assert.Contains(t, status[0], "| dee_2 | ACC |")
	assert.NotContains(t, status[0], "| dee |", "the replaced coder left")
	assert.Contains(t, status[0], "| ivy | active |", "woken")
}
