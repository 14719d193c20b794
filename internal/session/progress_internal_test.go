package session

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/statusline"
)

type fakeTree string

func (t fakeTree) Hash() string           { return string(t) }
func (t fakeTree) WriteTo(_ string) error { return nil }

// stepJudge lays out each job's tree, as the local judge does when a job starts, and
// notes what the status line said after each.
type stepJudge struct {
	status *statusline.Display
	said   []string
	calls  int
}

var clockAtEnd = regexp.MustCompile(` · \d+:\d\d$`)

func (j *stepJudge) Run(_ context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	j.calls++
	out := make([]ci.Verdict, len(jobs))
	for i, job := range jobs {
		if err := job.Tree.WriteTo(""); err != nil {
			return nil, err
		}
		j.said = append(j.said, clockAtEnd.ReplaceAllString(j.status.Text(), ""))
		out[i] = ci.Verdict{Outcome: ci.Pass, Runs: reruns}
	}
	return out, nil
}

// While the judge works, the status line says which test runs on how many coders and how
// many jobs have begun; the verdict cache still knows the jobs behind the wrapper.
func TestWatchedJudgeShowsAClassificationInProgress(t *testing.T) {
	status := statusline.New(&bytes.Buffer{})
	defer status.Close()
	inner := &stepJudge{status: status}
	cached, err := ci.NewCached(inner, ci.Contract{Run: "true"}, "", nil)
	require.NoError(t, err)
	judge := watchedJudge{inner: cached, status: status, count: true}
	var jobs []ci.Job
	for _, coder := range []string{"amber", "basil", "cedar", "dune", "ember"} {
		jobs = append(jobs, ci.Job{Coder: coder, Tree: fakeTree(coder), Test: ci.Test{ID: "ivy-3", Content: []byte("test")}})
	}

	verdicts, err := judge.Run(context.Background(), 20, jobs)
	require.NoError(t, err)
	assert.Len(t, verdicts, 5)
	assert.Equal(t, []string{
		"judging ivy-3 on 5 coders (1/5)", "judging ivy-3 on 5 coders (2/5)", "judging ivy-3 on 5 coders (3/5)",
		"judging ivy-3 on 5 coders (4/5)", "judging ivy-3 on 5 coders (5/5)",
	}, inner.said)
	assert.Empty(t, status.Text(), "the line is free once the verdicts are in")

	_, err = judge.Run(context.Background(), 20, jobs)
	require.NoError(t, err)
	assert.Equal(t, 1, inner.calls, "the second classification is answered from the cache")
}
