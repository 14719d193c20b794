package agent

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Turns against models as they really answer: the recorded replies of
// internal/llm/llmtest/testdata/recorded, and the replies that end a turn too early.

const (
	ollamaWrite  = "ollama-qwen2.5-coder-call-as-json-stream"       // write_file greet.go, as JSON text
	ollamaSubmit = "ollama-qwen2.5-coder-call-in-json-fence-stream" // submit_test, in a ```json fence
)

var solve1 = orchestrate.Turn{Message: "Please implement the specification.", Draw: 1}

// logged gives the rig a logger whose lines the test can read.
func (r *rig) logged() *bytes.Buffer {
	var buf bytes.Buffer
	r.opts.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	return &buf
}

func (r rig) tester(t *testing.T, contract ci.Contract) *Tester {
	t.Helper()
	baseDir := t.TempDir()
	require.NoError(t, r.opts.Workshop.Checkout(r.base, baseDir))
	tester, err := NewTester(r.opts, baseDir, contract)
	require.NoError(t, err)
	return tester
}

// lastUser is the last user message of request i.
func lastUser(t *testing.T, r rig, i int) string {
	t.Helper()
	msgs := r.srv.Requests()[i].Messages
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j].Role == "user" {
			return msgs[j].Content
		}
	}
	return ""
}

// coderRef is the coder's hidden ref; "" when it never committed a solution.
func coderRef(t *testing.T, r rig) string {
	t.Helper()
	head, _, err := r.opts.Workshop.Ref("refs/dixit/r/coders/amber")
	require.NoError(t, err)
	return head
}

func TestACoderWritesFilesAnOllamaModelWroteAsJSONText(t *testing.T) {
	r := newRig(t, "amber")
	logs := r.logged()
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Recorded(ollamaWrite), llmtest.Text("I wrote greet.go."))
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.NotEqual(t, r.base, commit, "the solution is not the base")
	assert.Contains(t, files(t, r.opts.Workshop, commit)["greet.go"], "func Hello(name string) string")
	assert.Equal(t, commit, coderRef(t, r))
	assert.Len(t, r.srv.Requests(), 2, "having written, the text reply ends the turn: no nudge")
	assert.Equal(t, 1, c.Stats().RecoveredCalls)
	assert.Equal(t, 2, c.Stats().Replies)
	assert.Contains(t, logs.String(), "recovered=json")
	assert.Zero(t, c.failed)
}

// With agents.tools: native the same reply is text: the coder is nudged once, writes
// nothing, and its turn is a failed attempt that commits nothing.
func TestANativeOnlyCoderTakesNoCallFromText(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsNative
	logs := r.logged()
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Recorded(ollamaWrite), llmtest.Recorded(ollamaWrite))
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Equal(t, r.base, commit, "the previous solution (the base) stands")
	assert.Empty(t, coderRef(t, r), "no solution was committed")
	assert.NotContains(t, files(t, r.opts.Workshop, commit), "greet.go")
	require.Len(t, r.srv.Requests(), 2)
	assert.Equal(t, nudgeCoder, lastUser(t, r, 1))
	assert.Zero(t, c.Stats().RecoveredCalls)
	assert.Equal(t, 1, c.failed)
	assert.Contains(t, logs.String(), "the turn changed no file; no new solution")
}

func TestATesterSubmitsTheTestInAFencedJSONCall(t *testing.T) {
	contract, _ := languages.Preset("go")
	r := newRig(t, "ivy")
	tester := r.tester(t, contract)
	r.srv.Enqueue(llmtest.Recorded(ollamaSubmit))
	p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
	require.NoError(t, err)
	require.False(t, p.None)
	assert.True(t, strings.HasPrefix(string(p.Content), "package greet\n"), "the test the call holds: %q", p.Content)
	assert.Contains(t, string(p.Content), "func TestHelloGreetsByName(t *testing.T)")
	assert.NotContains(t, string(p.Content), `"submit_test"`)
	assert.Equal(t, 1, tester.Stats().RecoveredCalls)
}

// Unread (agents.tools: native), the fenced JSON call is text; the fallback that takes a
// test from a code block never takes it: the tester is nudged, then proposes nothing.
func TestAFencedJSONCallIsNeverSubmittedAsTheTest(t *testing.T) {
	contract, _ := languages.Preset("go")
	r := newRig(t, "ivy")
	r.opts.Tools = config.ToolsNative
	tester := r.tester(t, contract)
	r.srv.Enqueue(llmtest.Recorded(ollamaSubmit), llmtest.Recorded(ollamaSubmit))
	p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
	require.NoError(t, err)
	assert.True(t, p.None, "proposed %q", p.Content)
	require.Len(t, r.srv.Requests(), 2)
	assert.Equal(t, nudgeTester, lastUser(t, r, 1))
}

func TestTheCodeBlockFallbackTakesOnlyTheTestFilesLanguage(t *testing.T) {
	goTest := "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"
	call := `{"name": "submit_test", "arguments": {"content": "package x"}}` + "\n"
	tests := []struct {
		name, path, reply, want string
	}{
		{"a go block", "x_{id}_test.go", "```go\n" + goTest + "```\n", goTest},
		{"golang, uppercase", "x_{id}_test.go", "```Golang\n" + goTest + "```\n", goTest},
		{"unlabelled code", "x_{id}_test.go", "```\n" + goTest + "```\n", goTest},
		{"the go block, not the shell line after it", "x_{id}_test.go", "```go\n" + goTest + "```\nRun it:\n```sh\ngo test ./...\n```\n", goTest},
		{"a json block", "x_{id}_test.go", "```json\n" + call + "```\n", ""},
		{"unlabelled json", "x_{id}_test.go", "```\n" + call + "```\n", ""},
		{"another language", "x_{id}_test.go", "```python\ndef test_x(): pass\n```\n", ""},
		{"a python block for python tests", "tests/test_{id}.py", "```python\ndef test_x(): pass\n```\n", "def test_x(): pass\n"},
		{"a go block for python tests", "tests/test_{id}.py", "```go\n" + goTest + "```\n", ""},
		{"json data for json tests", "cases/{id}.json", "```json\n{\"input\": [1, 2], \"want\": 3}\n```\n", "{\"input\": [1, 2], \"want\": 3}\n"},
		{"but never a call, even then", "cases/{id}.json", "```json\n" + call + "```\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "ivy")
			tester := r.tester(t, ci.Contract{Path: tc.path, Run: "true"})
			got := tester.codeBlock(llm.Message{Role: llm.RoleAssistant, Content: "Here it is:\n" + tc.reply})
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func TestRepliesWithoutCallsGetOneNudge(t *testing.T) {
	t.Run("then the coder writes", func(t *testing.T) {
		r := newRig(t, "amber")
		c := r.coder(t)
		r.srv.Enqueue(llmtest.Text("I will implement Add."), llmtest.Calls(write("1", "package x\n")), llmtest.Calls(finish))
		commit, err := c.Solve(context.Background(), solve1)
		require.NoError(t, err)
		assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
		assert.Equal(t, nudgeCoder, lastUser(t, r, 1))
		assert.Zero(t, c.failed)
	})
	t.Run("a second reply without calls ends the turn", func(t *testing.T) {
		r := newRig(t, "amber")
		c := r.coder(t)
		r.srv.Enqueue(llmtest.Text("The code is fine."), llmtest.Text("The code is fine, really."))
		commit, err := c.Solve(context.Background(), solve1)
		require.NoError(t, err)
		assert.Len(t, r.srv.Requests(), 2)
		assert.Equal(t, r.base, commit)
		assert.Equal(t, 1, c.failed)
		nudges := 0
		for _, m := range c.messages {
			if m.Content == nudgeCoder {
				nudges++
			}
		}
		assert.Equal(t, 1, nudges, "said once")
	})
	t.Run("a tester that wrote its test as a code block is not nudged", func(t *testing.T) {
		contract, _ := languages.Preset("go")
		r := newRig(t, "ivy")
		tester := r.tester(t, contract)
		r.srv.Enqueue(llmtest.Text("```go\npackage x\n```\n"))
		p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
		require.NoError(t, err)
		assert.Equal(t, "package x\n", string(p.Content))
		assert.Len(t, r.srv.Requests(), 1)
	})
}

func TestAReplyCutOffAtTheTokenLimitGoesOn(t *testing.T) {
	t.Run("once", func(t *testing.T) {
		r := newRig(t, "amber")
		c := r.coder(t)
		r.srv.Enqueue(llmtest.Step{Content: "First I will write x.go with", FinishReason: "length"},
			llmtest.Calls(write("1", "package x\n")), llmtest.Calls(finish))
		commit, err := c.Solve(context.Background(), solve1)
		require.NoError(t, err)
		assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
		assert.Equal(t, cutOff, lastUser(t, r, 1))
		assert.Equal(t, 1, c.Stats().Truncated)
	})
	t.Run("then a nudge, then the turn ends", func(t *testing.T) {
		r := newRig(t, "amber")
		c := r.coder(t)
		cut := llmtest.Step{Content: "First I will", FinishReason: "length"}
		r.srv.Enqueue(cut, cut, cut)
		commit, err := c.Solve(context.Background(), solve1)
		require.NoError(t, err)
		require.Len(t, r.srv.Requests(), 3)
		assert.Equal(t, cutOff, lastUser(t, r, 1))
		assert.Equal(t, nudgeCoder, lastUser(t, r, 2))
		assert.Equal(t, r.base, commit)
	})
	t.Run("not after work was done, when it is the last word", func(t *testing.T) {
		r := newRig(t, "amber")
		c := r.coder(t)
		r.srv.Enqueue(llmtest.Calls(write("1", "package x\n")), llmtest.Step{Content: "Summary: I", FinishReason: "length"},
			llmtest.Text("I wrote x.go."))
		_, err := c.Solve(context.Background(), solve1)
		require.NoError(t, err)
		assert.Len(t, r.srv.Requests(), 3, "asked to go on once, then the text ends the turn")
	})
}

func TestARefusalIsAFailedTurnAndNoAnswer(t *testing.T) {
	ctx := context.Background()
	t.Run("coder", func(t *testing.T) {
		r := newRig(t, "amber")
		logs := r.logged()
		c := r.coder(t)
		r.srv.Enqueue(llmtest.Recorded("openai-stream-refusal"))
		commit, err := c.Solve(ctx, solve1)
		require.NoError(t, err)
		assert.Len(t, r.srv.Requests(), 1, "no nudge after a refusal")
		assert.Equal(t, r.base, commit)
		assert.Equal(t, 1, c.failed, "one failed attempt, not two")
		assert.Equal(t, 1, c.Stats().Refused)
		assert.Contains(t, logs.String(), "the model refused")
	})
	t.Run("tester", func(t *testing.T) {
		contract, _ := languages.Preset("go")
		r := newRig(t, "ivy")
		tester := r.tester(t, contract)
		r.srv.Enqueue(llmtest.Refusal("I won't write this one:\n```go\npackage x // refused\n```\n"))
		p, err := tester.Propose(ctx, orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
		require.NoError(t, err)
		assert.True(t, p.None, "the refusal's text is no test: %q", p.Content)
	})
	t.Run("critic", func(t *testing.T) {
		r := newRig(t, "critic_general")
		critic, err := NewCritic(r.opts, "general")
		require.NoError(t, err)
		r.srv.Enqueue(llmtest.Refusal(`{"lgtm": true}`))
		answer, err := critic.Answer(ctx, orchestrate.Turn{Message: "Please review.", Draw: 1})
		require.NoError(t, err)
		assert.Empty(t, answer, "a refusal approves nothing")
	})
}

func TestATurnThatChangesNothingIsNoNewSolution(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, "amber")
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Calls(write("1", "package x\n")), llmtest.Calls(finish))
	first, err := c.Solve(ctx, solve1)
	require.NoError(t, err)

	// The same content again, then finish: the tree is the first solution's.
	r.srv.Enqueue(llmtest.Calls(write("2", "package x\n")), llmtest.Calls(finish))
	second, err := c.Solve(ctx, orchestrate.Turn{Message: "Your code was checked: Test 1 fails.", Draw: 2})
	require.NoError(t, err)
	assert.Equal(t, first, second, "the previous solution stands")
	assert.Equal(t, first, coderRef(t, r), "no commit was added")
	assert.Equal(t, 1, c.failed)
	current, err := c.Workspace(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, current)

	r.srv.Enqueue(llmtest.Calls(write("3", "package x // better\n")), llmtest.Calls(finish))
	third, err := c.Solve(ctx, orchestrate.Turn{Message: "Your code was checked: Test 1 fails.", Draw: 3})
	require.NoError(t, err)
	assert.NotEqual(t, first, third)
	assert.Equal(t, "package x // better\n", files(t, r.opts.Workshop, third)["x.go"])
}

func TestAnExternalCoderThatChangesNothingCommitsNothing(t *testing.T) {
	r := newRig(t, "ext")
	logs := r.logged()
	e, err := NewExternal(ExternalOptions{Options: r.opts, Command: "cat >/dev/null", Dir: r.dir, Base: r.base})
	require.NoError(t, err)
	commit, err := e.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Equal(t, r.base, commit)
	head, _, err := r.opts.Workshop.Ref("refs/dixit/r/coders/ext")
	require.NoError(t, err)
	assert.Empty(t, head)
	assert.Contains(t, logs.String(), "no new solution")
}

// A turn with a cut-off reply, a nudge and a call read from text, redone by a new
// process, is rebuilt from the journal alone: the same requests, the same solution.
func TestATurnWithFollowUpsRedoneAfterACrashPaysNothing(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, "amber")
	r.srv.Enqueue(llmtest.Step{Content: "Let me", FinishReason: "length"}, llmtest.Text("I think it works."),
		llmtest.Recorded(ollamaWrite), llmtest.Text("Done."))
	first, err := r.coder(t).Solve(ctx, solve1)
	require.NoError(t, err)
	paid := len(r.srv.Requests())
	require.Equal(t, 4, paid)

	again := r.coder(t)
	second, err := again.Solve(ctx, solve1)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Len(t, r.srv.Requests(), paid, "every reply came from the journal")
	assert.Equal(t, Stats{Replies: 4, RecoveredCalls: 1, Truncated: 1}, again.Stats(), "counted from the journal")
	data, err := os.ReadFile(filepath.Join(r.dir, "greet.go"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "func Hello")
}
