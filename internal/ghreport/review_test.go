package ghreport

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

// TestOneReviewEditedInPlace: the verdict is one review, a comment on the head it judged;
// a later verdict edits that review, even when GitHub lost the answer to its creation.
func TestOneReviewEditedInPlace(t *testing.T) {
	ctx := context.Background()
	srv := ghtest.NewServer(t)
	head := strings.Repeat("b", 40)
	srv.State.AddPull("o", "r", 4, ghtest.PullSpec{Title: "Fix", Body: "Fixes #3", HeadRef: "fix", HeadSHA: head, BaseRef: "main", BaseSHA: strings.Repeat("a", 40)})
	srv.State.AddPull("o", "r", 5, ghtest.PullSpec{Title: "Other", HeadRef: "other", HeadSHA: head, BaseRef: "main", BaseSHA: strings.Repeat("a", 40)})
	gh := srv.Client(nil)

	// GitHub creates the review but the answer is lost: the next attempt finds it.
	srv.Inject(ghtest.Fault{Method: http.MethodPost, Path: "repos/o/r/pulls/4/reviews", Lost: true})
	_, err := Review(ctx, gh, PullRef{Owner: "o", Repo: "r", Number: 4}, "**Verdict: failure.**")
	require.Error(t, err)
	id, err := Review(ctx, gh, PullRef{Owner: "o", Repo: "r", Number: 4}, "**Verdict: failure.**")
	require.NoError(t, err)
	id2, err := Review(ctx, gh, PullRef{Owner: "o", Repo: "r", Number: 4}, "**Verdict: success.**")
	require.NoError(t, err)
	assert.Equal(t, id, id2)

	reviews := srv.State.Reviews("o", "r", 4)
	require.Len(t, reviews, 1, "one review, edited")
	assert.Equal(t, "COMMENTED", reviews[0].State)
	assert.Equal(t, head, reviews[0].CommitID)
	assert.True(t, strings.HasPrefix(reviews[0].Body, ReviewMarker(4)))
	assert.Contains(t, reviews[0].Body, "**Verdict: success.**")

	// Another pull request's review is its own.
	_, err = Review(ctx, gh, PullRef{Owner: "o", Repo: "r", Number: 5}, strings.Repeat("x", 70_000))
	require.NoError(t, err)
	reviews = srv.State.Reviews("o", "r", 5)
	require.Len(t, reviews, 1)
	assert.LessOrEqual(t, len([]rune(reviews[0].Body)), 65_536, "cut to GitHub's limit")
	assert.Contains(t, reviews[0].Body, "cut here to fit GitHub's limit")
}
