package session_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// The critics protocol end to end with scripted agents and the real judge: the critics'
// corrections reach the fixer, the approved code's own tests run in the sandbox, and a
// failing one goes back to the fixer until the code is accepted.
func TestCriticsProtocolRunsWithTheRealJudge(t *testing.T) {
	t.Parallel()
	out, err := session.Run(context.Background(), session.Options{
		Population: "testdata/critics", StateDir: t.TempDir(), BuildCache: buildCache,
	})
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, "critics", res.Protocol)
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, 3, res.Rounds, "reviewed, then failing its own test, then accepted")
	var story []string
	for _, ev := range res.Events {
		switch ev.Kind {
		case orchestrate.EvReview, orchestrate.EvOwnTests, orchestrate.EvSolve:
			story = append(story, ev.Agent+" "+ev.Detail)
		}
	}
	assert.Equal(t, []string{
		"pat solve 1",
		"correctness asks for 1 corrections", "design approves", // critics review in name order
		"pat solve 2",
		"correctness approves", "design approves", "pat 0 of 1 test files pass",
		"pat solve 3",
		"correctness approves", "design approves", "pat 1 of 1 test files pass",
	}, story)
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	report := string(md)
	assert.Contains(t, report, "Protocol: **critics**")
	assert.Contains(t, report, "**Outcome: ACCEPTED**")
	assert.Contains(t, report, "| `clamp_test.go` | pass |")
	assert.True(t, strings.Contains(report, "| correctness | approves |"), "the last reviews are shown")
}

// tdg end to end: the human test from the base revision and the designed test condition
// the programmers; no candidate passes both at first, the navigator analyses the
// failures, and the second iteration's candidate is accepted.
func TestTDGProtocolRunsWithTheRealJudge(t *testing.T) {
	t.Parallel()
	out, err := session.Run(context.Background(), session.Options{
		Population: "testdata/tdg", StateDir: t.TempDir(), BuildCache: buildCache,
	})
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, "ann", res.Final)
	assert.Equal(t, 2, res.Rounds)
	var suites []string
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvSuite {
			suites = append(suites, fmt.Sprintf("r%d %s %s", ev.Round, ev.Agent, ev.Detail))
		}
	}
	assert.Equal(t, []string{
		"r1 ann candidate passes 1 of 2 tests", "r1 ben candidate passes 1 of 2 tests",
		"r2 ann candidate passes 2 of 2 tests", "r2 ben candidate passes 1 of 2 tests",
	}, suites, "the human test (lower bound) and the designed one (upper bound)")
}

// Live critics: the coder writes code and its own test through the real tool loop, a
// general critic (a live advisor) answers in the chat-completions wire format, and the
// run is accepted once the critic approves and the coder's test passes in the sandbox.
func TestLiveCriticsThroughTheWireFormat(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		system := req.Messages[0].Content
		last := req.Messages[len(req.Messages)-1]
		if strings.Contains(system, "You review code") {
			if strings.Contains(last.Content, "calc_test.go") {
				return llmtest.Step{Content: "```json\n{\"lgtm\": true, \"corrections\": null}\n```"}
			}
			return llmtest.Step{Content: `{"lgtm": false, "corrections": [{"issue": "there is no test"}]}`}
		}
		if last.Role == "tool" {
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{call("f1", "finish", map[string]string{"summary": "done"})}}
		}
		calls := []llmtest.ToolCall{call("w1", "write_file", map[string]string{"path": "calc.go",
			"content": "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a + b }\n"})}
		if strings.Contains(last.Content, "there is no test") {
			calls = append(calls, call("w2", "write_file", map[string]string{"path": "calc_test.go",
				"content": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"assert_id=1a2b3c\")\n\t}\n}\n"}))
		}
		return llmtest.Step{ToolCalls: calls}
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	files, head, err := gitstate.ReadHead(calcRepo(t))
	require.NoError(t, err)
	settings, err := config.Parse([]byte("protocol: critics\ncoders: 1\ntesters: 0\nreruns: 2\ncritics: {general: true}\n" +
		"test: {preset: go, timeout: 20s}\nagents:\n  model: fake-model\n  max_steps: 6\n  coders:\n    - {name: solo}\n"))
	require.NoError(t, err)
	out, err := session.RunInput(context.Background(), session.Options{RunID: "live-critics", Client: client, StateDir: t.TempDir(), BuildCache: buildCache},
		session.Input{Spec: "Implement `Add(a, b int) int` in package calc.\n", Files: files, Head: head, Settings: settings, Source: "test"})
	require.NoError(t, err)
	assert.Equal(t, orchestrate.Accepted, out.Result.Outcome, out.Result.Reason)
	assert.Equal(t, "solo", out.Result.Final)
	assert.Equal(t, 2, out.Result.Rounds, "one round of corrections, then approved and passing")
	assert.Positive(t, out.Summary.Spend.ByAgent["critic_general"].Prompt, "the critic's tokens are accounted")
}
