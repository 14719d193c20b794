package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/apprun"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

type fakeClients struct{ srv *ghtest.Server }

func (c fakeClients) InstallationClient(int64) (*github.Client, error) { return c.srv.Client(nil), nil }

// TestRerunFindsTheRunByTheIdsApprunWrites: the check handler reads a check run's external
// id, which apprun writes (RunID, VetRunID). Owners with "_" or capitals, repositories with
// dots, and a fresh vetting all lead back to their run.
func TestRerunFindsTheRunByTheIdsApprunWrites(t *testing.T) {
	ctx := context.Background()
	gh := ghtest.NewServer(t)
	var mu sync.Mutex
	started := map[string]int{}
	runs, err := app.NewManager(filepath.Join(t.TempDir(), "runs"), app.ExecuteFunc(func(ctx context.Context, i app.Issue) error {
		mu.Lock()
		started[i.String()+"/"+i.Kind]++
		mu.Unlock()
		return nil // ends at once: Finished
	}), nil)
	require.NoError(t, err)
	t.Cleanup(func() { runs.Shutdown(ctx) })
	h := &app.CheckHandler{Base: app.Base{Clients: fakeClients{gh}, Runs: runs, Label: "dixit"}}

	data, err := os.ReadFile(filepath.Join("testdata", "check_run.rerequested.json"))
	require.NoError(t, err)
	for _, c := range []struct {
		issue app.Issue
		id    func(app.Issue) string
	}{
		{app.Issue{Owner: "Acme_Corp", Repo: "api.v2", Number: 7}, apprun.RunID},
		{app.Issue{Owner: "acme", Repo: "x-5-vet", Number: 12}, apprun.RunID},
		{app.Issue{Owner: "acme", Repo: "api", Number: 8, Kind: app.KindVet}, apprun.VetRunID},
		{app.Issue{Owner: "acme", Repo: "api", Number: 9, Kind: app.KindVet, Fresh: 4242}, apprun.VetRunID},
	} {
		c.issue.Installation = 42
		gh.State.SetPermission(c.issue.Owner, c.issue.Repo, "writer", "write")
		_, err := runs.Start(c.issue)
		require.NoError(t, err)
		key := c.issue.String() + "/" + c.issue.Kind
		require.Eventually(t, func() bool { r, _, _ := runs.Record(c.issue); return r.State == app.Finished }, 5*time.Second, 10*time.Millisecond)

		var p map[string]any
		require.NoError(t, json.Unmarshal(data, &p))
		p["installation"] = map[string]any{"id": 42}
		p["sender"] = map[string]any{"login": "writer"}
		cr, _, err := gh.Client(nil).Checks.CreateCheckRun(ctx, c.issue.Owner, c.issue.Repo, github.CreateCheckRunOptions{
			Name: "Dixit", HeadSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", ExternalID: github.String(c.id(c.issue))})
		require.NoError(t, err)
		p["check_run"].(map[string]any)["id"], p["check_run"].(map[string]any)["external_id"] = cr.GetID(), cr.GetExternalID()
		r := p["repository"].(map[string]any)
		r["name"], r["full_name"] = c.issue.Repo, c.issue.Owner+"/"+c.issue.Repo
		r["owner"].(map[string]any)["login"] = c.issue.Owner
		payload, err := json.Marshal(p)
		require.NoError(t, err)
		require.NoError(t, h.Handle(ctx, "check_run", "d-"+key, payload))
		assert.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return started[key] == 2 }, 5*time.Second, 10*time.Millisecond,
			"%s (external id %s) runs again", key, c.id(c.issue))
	}
}
