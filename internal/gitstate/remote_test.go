package gitstate

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
)

func TestFetchHeadOverSmartHTTP(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.Repo("calc", "main", map[string]string{
		"go.mod": "module example.com/calc\n", "calc.go": "package calc\n", ".github/dixit.yml": "coders: 3\n",
	})
	files, commit, err := FetchHead(context.Background(), url, "main", srv.Token)
	require.NoError(t, err)
	assert.Len(t, commit, 40)
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = string(f.Content)
	}
	assert.Equal(t, "package calc\n", got["calc.go"])
	assert.Equal(t, "coders: 3\n", got[".github/dixit.yml"])

	_, _, err = FetchHead(context.Background(), url, "main", "wrong-token")
	assert.Error(t, err, "a bad token is refused")
	_, _, err = FetchHead(context.Background(), url, "nope", srv.Token)
	assert.ErrorContains(t, err, "fetch nope")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = FetchHead(ctx, url, "main", srv.Token)
	assert.Error(t, err, "a cancelled context stops the fetch")
}

// TestFetchHeadOfAPullRequest: GitHub serves a pull request's head as refs/pull/N/head of
// the base repository, forks included; a full ref is fetched as it is.
func TestFetchHeadOfAPullRequest(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.Repo("calc", "main", map[string]string{"go.mod": "module example.com/calc\n", "calc.go": "package calc\n"})
	head := srv.Commit("calc", "main", map[string]string{"go.mod": "module example.com/calc\n", "add.go": "package calc // add\n"}, "refs/pull/2/head")
	files, commit, err := FetchHead(context.Background(), url, "refs/pull/2/head", srv.Token)
	require.NoError(t, err)
	assert.Equal(t, head, commit)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	assert.ElementsMatch(t, []string{"go.mod", "add.go"}, paths, "the head's tree, with calc.go deleted")
	_, _, err = FetchHead(context.Background(), url, "refs/pull/3/head", srv.Token)
	assert.ErrorContains(t, err, "refs/pull/3/head")
}

func TestPushHiddenRefsAsBranches(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.Repo("calc", "main", map[string]string{"go.mod": "module example.com/calc\n"})
	w, err := Open(t.TempDir() + "/w.git")
	require.NoError(t, err)
	tree, err := w.WriteFiles([]File{{Path: "calc.go", Content: []byte("package calc // amber\n")}})
	require.NoError(t, err)
	c1, err := w.Commit("refs/dixit/r/coders/amber", tree, "solve 1")
	require.NoError(t, err)

	require.NoError(t, w.Push(context.Background(), url, srv.Token, "refs/dixit/r/coders/amber:refs/heads/dixit/7/amber"))
	files, commit, err := FetchHead(context.Background(), url, "dixit/7/amber", srv.Token)
	require.NoError(t, err)
	assert.Equal(t, c1, commit, "the remote branch is the coder's commit")
	assert.Equal(t, "package calc // amber\n", string(files[0].Content))

	// A rollback moves the hidden ref back: only a forced push follows it.
	tree2, err := w.WriteFiles([]File{{Path: "calc.go", Content: []byte("package calc // v2\n")}})
	require.NoError(t, err)
	c2, err := w.CommitAfter("refs/dixit/r/coders/amber", "", tree2, "unrelated history")
	require.NoError(t, err)
	assert.Error(t, w.Push(context.Background(), url, srv.Token, "refs/dixit/r/coders/amber:refs/heads/dixit/7/amber"), "not a fast-forward")
	require.NoError(t, w.Push(context.Background(), url, srv.Token, "+refs/dixit/r/coders/amber:refs/heads/dixit/7/amber"))
	_, commit, err = FetchHead(context.Background(), url, "dixit/7/amber", srv.Token)
	require.NoError(t, err)
	assert.Equal(t, c2, commit)

	assert.Error(t, w.Push(context.Background(), url, "bad-token", "+refs/dixit/r/coders/amber:refs/heads/x"))
	assert.Error(t, w.Push(context.Background(), url, srv.Token, "not a refspec"))
}

// TestAHeadNamingOneHugeBlobManyTimesIsRefused: a pull request's head can name one blob
// of 32 MiB nine times in a pack of a few kilobytes; it is refused from the sizes git
// records, before 288 MiB are read into memory.
func TestAHeadNamingOneHugeBlobManyTimesIsRefused(t *testing.T) {
	w, err := Open(t.TempDir() + "/w.git")
	require.NoError(t, err)
	big := make([]byte, maxRepoFile)
	var files []File
	for i := range 9 {
		files = append(files, File{Path: fmt.Sprintf("zeros%d", i), Content: big})
	}
	tree, err := w.WriteFiles(files)
	require.NoError(t, err)
	_, err = w.Commit("refs/heads/master", tree, "nine names for one blob")
	require.NoError(t, err)
	repo, err := git.PlainOpen(w.Path())
	require.NoError(t, err)
	_, _, err = headFiles(repo, w.Path())
	assert.ErrorContains(t, err, "the tree is larger than")
}
