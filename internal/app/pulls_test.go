package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pr = "Codertocat/Hello-World#2"

func (h *harness) startedWith(key string) (int, Issue) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started[key], h.last[key]
}

func (h *harness) waitStarted(key string, n int) Issue {
	h.t.Helper()
	require.Eventually(h.t, func() bool { got, _ := h.startedWith(key); return got == n }, 5*time.Second, 10*time.Millisecond)
	_, i := h.startedWith(key)
	return i
}

// withLabels sets the labels a pull_request payload shows on the pull request.
func withLabels(names ...string) func(map[string]any) {
	return func(p map[string]any) {
		var labels []any
		for _, n := range names {
			labels = append(labels, map[string]any{"name": n})
		}
		p["pull_request"].(map[string]any)["labels"] = labels
	}
}

// TestALabelledPullRequestIsVettedAndEachPushJudged: the label on a pull request starts
// its vetting; a push to a labelled pull request asks for a judgement of the new head
// (the run in progress picks it up, so nothing starts twice); without the label a push
// starts nothing; removing the label or closing the pull request cancels the vetting.
func TestALabelledPullRequestIsVettedAndEachPushJudged(t *testing.T) {
	h := newHarness(t)
	h.deliver("pull_request", "pull_request.labeled.json", label("bug"))
	h.deliver("pull_request", "pull_request.synchronize.json", withLabels("bug"))
	time.Sleep(50 * time.Millisecond)
	n, _ := h.startedWith(pr)
	assert.Zero(t, n, "another label, or a push to a pull request without the label, starts nothing")

	h.deliver("pull_request", "pull_request.labeled.json", label("Dixit"))
	got := h.waitStarted(pr, 1)
	assert.Equal(t, KindVet, got.Kind, "a pull request's run vets it")
	assert.Equal(t, 2, got.Number)
	h.deliver("pull_request", "pull_request.synchronize.json", withLabels("bug", "dixit"))
	time.Sleep(50 * time.Millisecond)
	n, _ = h.startedWith(pr)
	assert.Equal(t, 1, n, "the vetting in progress judges the new head when it is done")

	h.deliver("pull_request", "pull_request.unlabeled.json", label("dixit"))
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.ended[pr] }, 5*time.Second, 10*time.Millisecond)
	r, ok, err := h.runs.Record(Issue{Owner: "Codertocat", Repo: "Hello-World", Number: 2})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Cancelled, r.State)
	assert.Equal(t, KindVet, r.Issue.Kind, "cancelling keeps what kind of run it was")

	// Pushed again while labelled: a new head to judge.
	h.deliver("pull_request", "pull_request.synchronize.json", withLabels("dixit"))
	h.waitStarted(pr, 2)
	h.deliver("pull_request", "pull_request.closed.json", withLabels("dixit"))
	r, _, _ = h.runs.Record(Issue{Owner: "Codertocat", Repo: "Hello-World", Number: 2})
	assert.Equal(t, Cancelled, r.State, "closing the pull request cancels the vetting")

	// A human stopped it: pushes do not restart it.
	h.deliver("pull_request", "pull_request.synchronize.json", withLabels("dixit"))
	h.waitStarted(pr, 3)
	_, err = h.runs.Stop(Issue{Owner: "Codertocat", Repo: "Hello-World", Number: 2}, Stopped)
	require.NoError(t, err)
	h.deliver("pull_request", "pull_request.synchronize.json", withLabels("dixit"))
	time.Sleep(50 * time.Millisecond)
	n, _ = h.startedWith(pr)
	assert.Equal(t, 3, n, "a stopped vetting stays stopped")
}

// TestVetCommand: `/dixit vet` vets the pull request it is written on, once; `--fresh`
// moves the vetting to a run of its own (new coders and testers), which later pushes keep;
// on an issue, from a reader, or with an unknown flag it is refused with a reason.
func TestVetCommand(t *testing.T) {
	h := newHarness(t)
	h.deliver("issue_comment", "issue_comment.created.json", commentBy("writer", "/dixit vet"))
	require.Len(t, h.comments(), 1)
	assert.Contains(t, h.comments()[0], "vets a pull request")
	n, _ := h.startedWith(issue)
	assert.Zero(t, n)

	h.deliver("issue_comment", "issue_comment.created.pr.json", commentBy("reader", "/dixit vet"))
	assert.Contains(t, h.comments()[1], "only people with write access")

	h.deliver("issue_comment", "issue_comment.created.pr.json", commentBy("writer", "/dixit vet"))
	assert.Contains(t, h.comments()[2], "Vetting this pull request")
	first := h.waitStarted(issue, 1)
	assert.Equal(t, KindVet, first.Kind)
	assert.Zero(t, first.Fresh)

	h.deliver("issue_comment", "issue_comment.created.pr.json", commentBy("writer", "/dixit vet"))
	assert.Contains(t, h.comments()[3], "being vetted already")
	h.deliver("issue_comment", "issue_comment.created.pr.json", commentBy("writer", "/dixit vet --quick"))
	assert.Contains(t, h.comments()[4], "I don't know `--quick`")

	h.deliver("issue_comment", "issue_comment.created.pr.json", func(p map[string]any) {
		commentBy("writer", "/dixit vet --fresh")(p)
		p["comment"].(map[string]any)["id"] = 9001
	})
	assert.Contains(t, h.comments()[5], "afresh")
	fresh := h.waitStarted(issue, 2)
	assert.Equal(t, int64(9001), fresh.Fresh, "a run of its own, named by the comment that asked")
	require.Eventually(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.ended[issue] }, 5*time.Second, 10*time.Millisecond)

	// Stopped and resumed, it is still the fresh vetting.
	h.deliver("issue_comment", "issue_comment.created.pr.json", commentBy("writer", "/dixit stop"))
	h.deliver("issue_comment", "issue_comment.created.pr.json", commentBy("writer", "/dixit resume"))
	resumed := h.waitStarted(issue, 3)
	assert.Equal(t, fresh, resumed, "resume goes on with the recorded run, kind and all")
	r, _, err := h.runs.Record(Issue{Owner: "Codertocat", Repo: "Hello-World", Number: 1})
	require.NoError(t, err)
	assert.Equal(t, Running, r.State)
}

// TestAgainRunsOnceMoreAfterTheLiveRun: news that a live run may have looked for already
// (a push during a vetting) runs it once more when it ends; a plain Start does not.
func TestAgainRunsOnceMoreAfterTheLiveRun(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	m, err := NewManager(t.TempDir(), ExecuteFunc(func(ctx context.Context, i Issue) error {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			<-release
		}
		return nil
	}), nil)
	require.NoError(t, err)
	i := Issue{Installation: 1, Owner: "o", Repo: "r", Number: 2, Kind: KindVet}
	started, err := m.Start(i)
	require.NoError(t, err)
	require.True(t, started)
	started, err = m.Start(i)
	require.NoError(t, err)
	assert.False(t, started)
	started, err = m.Again(i)
	require.NoError(t, err)
	assert.False(t, started, "the run is live: it will go once more")
	close(release)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		r, _, _ := m.Record(i)
		return calls == 2 && r.State == Finished
	}, 5*time.Second, 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	assert.Equal(t, 2, calls, "once more, not forever")
	mu.Unlock()
	require.NoError(t, m.Shutdown(context.Background()))
}
