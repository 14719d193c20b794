package eval_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/eval"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

func toolCall(id, name string, args map[string]string) llmtest.ToolCall {
	data, _ := json.Marshal(args)
	return llmtest.ToolCall{ID: id, Name: name, Arguments: string(data)}
}

// With live agents the task's dixit.yml configures them, whatever the scripted sets
// hold: here a model (faked at the HTTP level) that writes a correct Clamp and one test
// runs the single protocol, and is measured on the hidden tests it never saw.
func TestLiveAgentsRunTheBenchmark(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		for _, m := range req.Messages {
			assert.NotContains(t, m.Content, "hidden", "no hidden test reaches the model")
		}
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{toolCall("f", "finish", map[string]string{"summary": "done"})}}
		}
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{
			toolCall("w1", "write_file", map[string]string{"path": "clamp.go", "content": "package clamp\n\n// Clamp limits x to [lo, hi].\n" +
				"func Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}\n"}),
			toolCall("w2", "write_file", map[string]string{"path": "mine_test.go", "content": "package clamp\n\nimport \"testing\"\n\n" +
				"func TestMine(t *testing.T) {\n\tif Clamp(5, 0, 3) != 3 {\n\t\tt.Fatal(\"assert_id=00aa11\")\n\t}\n}\n"}),
		}}
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	rep, err := eval.Run(context.Background(), eval.Options{Bench: bench, StateDir: t.TempDir(), BuildCache: buildCache,
		Protocols: []string{"single"}, Client: client})
	require.NoError(t, err)
	assert.Equal(t, "llm", rep.Agents)
	require.Len(t, rep.Runs, 1)
	row := rep.Runs[0]
	assert.Equal(t, "ACCEPTED", row.Outcome, row.Reason)
	assert.Equal(t, eval.Score{Passed: 3, Total: 3}, row.Hidden)
	// Its own test and the base revision's, which its workspace started from: both right
	// about the reference.
	assert.Equal(t, eval.Score{Passed: 2, Total: 2}, row.Precision)
	assert.True(t, strings.HasPrefix(row.Run, "eval-live-clamp-single-"))
	assert.Positive(t, row.PromptTokens)
	assert.NotEmpty(t, row.Models, "a live row names the models its agents used, for the report's heading")
}
