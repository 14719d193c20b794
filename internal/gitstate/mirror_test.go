package gitstate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate/gittest"
)

func appendN(t *testing.T, j *Journal, records ...string) {
	t.Helper()
	for _, r := range records {
		require.NoError(t, j.Append([]byte(r)))
	}
}

// TestARunMovesToAnotherDiskThroughTheWorkshop: one server mirrors a run to the remote
// workshop; a server with an empty disk adopts it whole; a disk that is ahead of the
// remote keeps its own state.
func TestARunMovesToAnotherDiskThroughTheWorkshop(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.EmptyRepo("hello-dixit")
	ctx := context.Background()
	const prefix = "refs/dixit/run-1/"

	a, err := Open(t.TempDir() + "/a.git")
	require.NoError(t, err)
	adopted, err := a.PullRun(ctx, url, srv.Token, prefix)
	require.NoError(t, err)
	assert.False(t, adopted, "an empty workshop has nothing to adopt")

	ja, err := a.Journal(prefix + "journal")
	require.NoError(t, err)
	appendN(t, ja, `{"n":1}`, `{"n":2}`)
	tree, err := a.WriteFiles([]File{{Path: "semver.go", Content: []byte("package semver // v1\n")}})
	require.NoError(t, err)
	rolledBack, err := a.Commit(prefix+"coders/amber", tree, "an attempt later rolled back")
	require.NoError(t, err)
	tree, err = a.WriteFiles([]File{{Path: "semver.go", Content: []byte("package semver\n")}})
	require.NoError(t, err)
	coder, err := a.CommitAfter(prefix+"coders/amber", "", tree, "solve")
	require.NoError(t, err)
	require.NotEqual(t, rolledBack, coder)
	_, err = a.Commit("refs/dixit/run-2/coders/amber", tree, "another run")
	require.NoError(t, err)
	require.NoError(t, a.PushRun(ctx, url, srv.Token, prefix))

	refs := srv.Refs("hello-dixit")
	assert.Equal(t, coder, refs[prefix+"coders/amber"])
	assert.Contains(t, refs, prefix+"journal")
	assert.NotContains(t, refs, "refs/dixit/run-2/coders/amber", "only this run's refs are mirrored")

	// A fresh disk adopts the run: the same journal, the same coder tree.
	b, err := Open(t.TempDir() + "/b.git")
	require.NoError(t, err)
	adopted, err = b.PullRun(ctx, url, srv.Token, prefix)
	require.NoError(t, err)
	assert.True(t, adopted)
	jb, err := b.Journal(prefix + "journal")
	require.NoError(t, err)
	entries, err := jb.Entries()
	require.NoError(t, err)
	assert.Equal(t, []string{`{"n":1}`, `{"n":2}`}, strs(entries))
	got, _, err := b.Ref(prefix + "coders/amber")
	require.NoError(t, err)
	assert.Equal(t, coder, got)
	files, err := b.Files(got)
	require.NoError(t, err)
	assert.Equal(t, "package semver\n", string(files[0].Content))
	files, err = b.Files(rolledBack)
	require.NoError(t, err, "a commit no ref reaches any more (the journal may name it) moved too")
	assert.Equal(t, "package semver // v1\n", string(files[0].Content))
	leftovers, err := b.refsUnder("refs/incoming/")
	require.NoError(t, err)
	assert.Empty(t, leftovers, "nothing of the fetch is left behind")

	// b goes on and mirrors; a, now behind, adopts b's longer journal.
	appendN(t, jb, `{"n":3}`)
	require.NoError(t, b.PushRun(ctx, url, srv.Token, prefix))
	adopted, err = a.PullRun(ctx, url, srv.Token, prefix)
	require.NoError(t, err)
	assert.True(t, adopted)
	ja, err = a.Journal(prefix + "journal")
	require.NoError(t, err)
	entries, err = ja.Entries()
	require.NoError(t, err)
	assert.Len(t, entries, 3)

	// A disk ahead of the remote (it journalled after its last mirror) keeps its state.
	appendN(t, ja, `{"n":4}`)
	adopted, err = a.PullRun(ctx, url, srv.Token, prefix)
	require.NoError(t, err)
	assert.False(t, adopted)
	ja, err = a.Journal(prefix + "journal")
	require.NoError(t, err)
	entries, err = ja.Entries()
	require.NoError(t, err)
	assert.Len(t, entries, 4, "never moved back")

	// Diverged: b went on after a lost its lease and pushed; a's unpushed entry is void.
	appendN(t, jb, `{"n":4, "by":"b"}`)
	require.NoError(t, b.PushRun(ctx, url, srv.Token, prefix))
	adopted, err = a.PullRun(ctx, url, srv.Token, prefix)
	require.NoError(t, err)
	assert.True(t, adopted, "the lease holder's pushed state wins over a diverged disk")
	ja, err = a.Journal(prefix + "journal")
	require.NoError(t, err)
	entries, err = ja.Entries()
	require.NoError(t, err)
	assert.Equal(t, `{"n":4, "by":"b"}`, string(entries[3]))

	_, err = a.PullRun(ctx, url, srv.Token, "refs/dixit/../x/")
	assert.Error(t, err, "a prefix that is not a ref prefix is refused")
}

func strs(bs [][]byte) []string {
	var out []string
	for _, b := range bs {
		out = append(out, string(b))
	}
	return out
}

// TestAFetchKilledMidwayDoesNotBlockTheNext: a process killed while fetching leaves an
// empty incoming ref file behind (go-git writes fetched refs in place); the next pull
// must still adopt the remote's run.
func TestAFetchKilledMidwayDoesNotBlockTheNext(t *testing.T) {
	srv := gittest.NewServer(t)
	url := srv.EmptyRepo("hello-dixit")
	ctx := context.Background()
	const prefix = "refs/dixit/run-1/"
	a, err := Open(t.TempDir() + "/a.git")
	require.NoError(t, err)
	ja, err := a.Journal(prefix + "journal")
	require.NoError(t, err)
	appendN(t, ja, `{"n":1}`)
	require.NoError(t, a.PushRun(ctx, url, srv.Token, prefix))

	b, err := Open(t.TempDir() + "/b.git")
	require.NoError(t, err)
	broken := filepath.Join(b.Path(), "refs", "incoming", "dixit", "run-1", "journal")
	require.NoError(t, os.MkdirAll(filepath.Dir(broken), 0o755))
	require.NoError(t, os.WriteFile(broken, nil, 0o644))
	adopted, err := b.PullRun(ctx, url, srv.Token, prefix)
	require.NoError(t, err)
	assert.True(t, adopted)
	jb, err := b.Journal(prefix + "journal")
	require.NoError(t, err)
	entries, err := jb.Entries()
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}
