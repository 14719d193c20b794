package session_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/session"
)

// TestConcurrentLiveRunsInOneProcess: eight live runs at once in one process, sharing one
// model client and one verdict cache as a server's runs do, each reach what a run alone
// reaches, and the cache spares them the judge's work. Shared state between runs (the
// client, the cache, the judges' lanes) would show here, above all under -race.
// The coders do not run commands, to keep the test short: bench/concurrent does.
func TestConcurrentLiveRunsInOneProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("about one live run's judge work plus eight cached runs")
	}
	const runs = 8
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		st := population(req)
		var calls []llmtest.ToolCall
		for _, c := range st.ToolCalls {
			if c.Name != "run_command" {
				calls = append(calls, c)
			}
		}
		st.ToolCalls = calls
		return st
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	spec, cache := writeSpec(t), t.TempDir()
	opts := func() session.Options {
		return session.Options{Spec: spec, Repo: calcRepo(t), Client: client, StateDir: t.TempDir(),
			BuildCache: buildCache, ResultCache: cache}
	}
	signature := func(out *session.Outcome) string {
		var vetted []string
		for _, v := range out.Result.Vetted {
			vetted = append(vetted, v.ID+" failed by "+strings.Join(v.FailedBy, ","))
		}
		return fmt.Sprintf("%s: %s", out.Result.Outcome, strings.Join(vetted, "; "))
	}

	// One run alone first: the outcome to match, and the verdicts the others find cached.
	alone, err := session.RunLive(context.Background(), opts())
	require.NoError(t, err)
	want := signature(alone)
	assert.Equal(t, "TESTERS_EXHAUSTED: sum-1 failed by water; zero-1 failed by water", want)
	perRun := len(srv.Requests())

	all := make([]session.Options, runs) // made here: calcRepo and TempDir may stop the test
	for i := range all {
		all[i] = opts()
	}
	outs := make([]*session.Outcome, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range all {
		wg.Go(func() { outs[i], errs[i] = session.RunLive(context.Background(), all[i]) })
	}
	wg.Wait()
	for i, out := range outs {
		require.NoError(t, errs[i], "run %d", i)
		assert.Equal(t, want, signature(out), "run %d", i)
		assert.Zero(t, out.Summary.Judge.Executions, "run %d: every verdict is in the shared cache", i)
	}
	assert.Len(t, srv.Requests(), (runs+1)*perRun, "every run asks the model the same questions")
}
