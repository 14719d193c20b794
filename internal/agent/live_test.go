package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

type rig struct {
	srv  *llmtest.Server
	opts Options
	base string
	dir  string
}

func newRig(t *testing.T, name string) rig {
	t.Helper()
	srv := llmtest.NewServer(t)
	cfg := llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey())
	cfg.MaxRetries = -1
	client, err := llm.NewOpenAI(cfg)
	require.NoError(t, err)
	w, err := gitstate.Open(filepath.Join(t.TempDir(), "w.git"))
	require.NoError(t, err)
	tree, err := w.WriteFiles([]gitstate.File{{Path: "go.mod", Content: []byte("module x\n")}})
	require.NoError(t, err)
	base, err := w.Commit("refs/dixit/r/base", tree, "base")
	require.NoError(t, err)
	return rig{srv: srv, base: base, dir: filepath.Join(t.TempDir(), name), opts: Options{
		Client: client, Settings: config.AgentSettings{Name: name, Seed: 7}, Model: "m", MaxSteps: 8,
		Spec: "Write x.go.", Workshop: w, Run: "r",
	}}
}

func (r rig) coder(t *testing.T) *Coder {
	t.Helper()
	c, err := NewCoder(r.opts, r.dir, r.base, nil)
	require.NoError(t, err)
	return c
}

func args(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func write(id, content string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "write_file", Arguments: args(map[string]string{"path": "x.go", "content": content})}
}

var finish = llmtest.ToolCall{ID: "f", Name: "finish", Arguments: "{}"}

func files(t *testing.T, w *gitstate.Workshop, commit string) map[string]string {
	t.Helper()
	all, err := w.Files(commit)
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range all {
		out[f.Path] = string(f.Content)
	}
	return out
}

func TestCoderTurnCommitsItsWorkingCopyAndRollsBack(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, "amber")
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Calls(write("1", "package x // one\n")), llmtest.Calls(finish))
	first, err := c.Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, "package x // one\n", files(t, r.opts.Workshop, first)["x.go"])
	req := r.srv.Requests()[0]
	assert.Contains(t, req.Messages[1].Content, "Write x.go.", "the spec comes with the first request")
	require.NotNil(t, req.Seed)
	assert.Equal(t, 8, *req.Seed, "seed = the agent's seed + its draw")

	cp, err := c.Save(ctx)
	require.NoError(t, err)
	r.srv.Enqueue(llmtest.Calls(write("2", "package x // two\n")), llmtest.Calls(finish))
	_, err = c.Solve(ctx, orchestrate.Turn{Message: "Your code was checked: Test 1 fails.", Draw: 2})
	require.NoError(t, err)
	require.NoError(t, c.Restore(ctx, cp))
	data, err := os.ReadFile(filepath.Join(r.dir, "x.go"))
	require.NoError(t, err)
	assert.Equal(t, "package x // one\n", string(data), "a rollback resets the working copy")
	for _, m := range c.messages {
		assert.NotContains(t, m.Content, "Test 1 fails", "and truncates the conversation")
	}
	head, _, err := r.opts.Workshop.Ref("refs/dixit/r/coders/amber")
	require.NoError(t, err)
	assert.Equal(t, first, head)
}

func TestATurnRedoneAfterACrashPaysForNoReplyTwice(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, "amber")
	r.srv.Enqueue(llmtest.Calls(write("1", "package x\n")), llmtest.Calls(finish))
	first, err := r.coder(t).Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err)
	paid := len(r.srv.Requests())

	// A new process redoes the same turn (its effect was never journalled by the protocol).
	again, err := r.coder(t).Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, first, again, "the same replies rebuild the same working copy")
	assert.Len(t, r.srv.Requests(), paid, "every reply came from the journal")
}

func TestTurnsThatGoWrong(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		steps   []llmtest.Step
		timeout time.Duration
		wantErr error
		check   func(t *testing.T, r rig, c *Coder, commit string)
	}{
		{
			name:  "an overfull context is compacted once and the turn goes on",
			steps: []llmtest.Step{llmtest.ContextTooLong(), llmtest.Calls(write("1", "package x\n")), llmtest.Calls(finish)},
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			},
		},
		{
			name:  "a runaway reply ends the turn as a failed attempt, keeping the work so far",
			steps: []llmtest.Step{llmtest.Calls(write("1", "package x\n")), llmtest.Text(strings.Repeat(" ", 5000))},
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				assert.Equal(t, 1, c.failed)
				assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			},
		},
		{
			name: "malformed tool arguments get an error the model can act on",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.ToolCall{ID: "1", Name: "write_file", Arguments: `{"path": "x.go", "content": 3`}),
				llmtest.Calls(write("2", "package x\n")), llmtest.Calls(finish),
			},
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				second := r.srv.Requests()[1]
				last := second.Messages[len(second.Messages)-1]
				assert.Equal(t, "tool", last.Role)
				assert.Contains(t, last.Content, "error")
				assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			},
		},
		{
			name:  "a refusal ends the turn",
			steps: []llmtest.Step{llmtest.Refusal("I can't help with that.")},
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				got, err := r.opts.Workshop.TreeOf(commit)
				require.NoError(t, err)
				base, err := r.opts.Workshop.TreeOf(r.base)
				require.NoError(t, err)
				assert.Equal(t, base, got, "nothing was written")
			},
		},
		{
			name: "a model that keeps making malformed calls has its turn ended",
			steps: []llmtest.Step{
				llmtest.Calls(write("1", "package x\n")),
				llmtest.Calls(llmtest.ToolCall{ID: "a", Name: "write_file", Arguments: `{"path": 1}`}),
				llmtest.Calls(llmtest.ToolCall{ID: "b", Name: "nope", Arguments: `{}`}),
				llmtest.Calls(llmtest.ToolCall{ID: "c", Name: "read_file", Arguments: `{"path": "/etc/passwd"}`}),
				llmtest.Calls(llmtest.ToolCall{ID: "d", Name: "write_file", Arguments: `not json`}),
				llmtest.Calls(llmtest.ToolCall{ID: "e", Name: "delete_file", Arguments: `{"path": "../x"}`}),
			},
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				assert.Equal(t, 1, c.failed)
				assert.Equal(t, 6, len(r.srv.Requests()), "no further request after the fifth bad call in a row")
				assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			},
		},
		{name: "an exhausted quota stops the run", steps: []llmtest.Step{llmtest.QuotaExceeded()}, wantErr: llm.ErrQuota},
		{
			name:    "a turn past its timeout ends with the work so far",
			steps:   []llmtest.Step{llmtest.Calls(write("1", "package x\n")), {Content: "thinking...", Delay: 5 * time.Second}},
			timeout: 500 * time.Millisecond,
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				assert.Equal(t, 1, c.failed)
				assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			},
		},
		{
			name: "the turn ends after max_steps replies",
			steps: []llmtest.Step{llmtest.Calls(write("1", "a")), llmtest.Calls(write("2", "b")), llmtest.Calls(write("3", "c")), llmtest.Calls(write("4", "d")),
				llmtest.Calls(write("5", "e")), llmtest.Calls(write("6", "f")), llmtest.Calls(write("7", "g")), llmtest.Calls(write("8", "package x\n"))},
			check: func(t *testing.T, r rig, c *Coder, commit string) {
				assert.Equal(t, 8, len(r.srv.Requests()))
				assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "amber")
			r.opts.TurnTimeout = tc.timeout
			c := r.coder(t)
			r.srv.Enqueue(tc.steps...)
			commit, err := c.Solve(ctx, orchestrate.Turn{Message: "Please implement the specification.", Draw: 1})
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, r, c, commit)
		})
	}
}

func TestTesterSubmitsOneTest(t *testing.T) {
	ctx := context.Background()
	contract, _ := languages.Preset("go")
	tests := []struct {
		name  string
		steps []llmtest.Step
		want  string
		none  bool
	}{
		{"submit_test", []llmtest.Step{
			llmtest.Calls(llmtest.ToolCall{ID: "r", Name: "read_file", Arguments: `{"path":"go.mod"}`}),
			llmtest.Calls(llmtest.ToolCall{ID: "s", Name: "submit_test", Arguments: args(map[string]string{"content": "package x // test\n"})}),
		}, "package x // test\n", false},
		{"an empty submission is refused, then a good one taken", []llmtest.Step{
			llmtest.Calls(llmtest.ToolCall{ID: "s", Name: "submit_test", Arguments: `{"content":"  "}`}),
			llmtest.Calls(llmtest.ToolCall{ID: "t", Name: "submit_test", Arguments: args(map[string]string{"content": "package x\n"})}),
		}, "package x\n", false},
		{"a test written as a code block", []llmtest.Step{llmtest.Text("Here it is:\n```go\npackage x // block\n```\n")}, "package x // block\n", false},
		{"a refusal proposes nothing", []llmtest.Step{llmtest.Refusal("No.")}, "", true},
		{"writing is not offered to a tester", []llmtest.Step{
			llmtest.Calls(llmtest.ToolCall{ID: "w", Name: "write_file", Arguments: `{"path":"go.mod","content":"x"}`}),
			llmtest.Text("I could not write."), llmtest.Text("I still could not write."),
		}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "ivy")
			baseDir := t.TempDir()
			require.NoError(t, r.opts.Workshop.Checkout(r.base, baseDir))
			tester, err := NewTester(r.opts, baseDir, contract)
			require.NoError(t, err)
			r.srv.Enqueue(tc.steps...)
			p, err := tester.Propose(ctx, orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
			require.NoError(t, err)
			assert.Equal(t, tc.none, p.None)
			assert.Equal(t, tc.want, string(p.Content))
			for _, tool := range r.srv.Requests()[0].Tools {
				assert.NotContains(t, []string{"write_file", "delete_file", "run_command"}, tool.Function.Name)
			}
			data, err := os.ReadFile(filepath.Join(baseDir, "go.mod"))
			require.NoError(t, err)
			assert.Equal(t, "module x\n", string(data), "the base revision stays untouched")
		})
	}
}
