package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// A tester names where its test goes: by submit_test's path, or, in the text protocol,
// by path= after the block's label. A place the contract refuses is told to the model,
// which may try again; one it never fixes proposes nothing.
func TestATesterNamesWhereItsTestGoes(t *testing.T) {
	contract, _ := languages.Preset("go")
	const test = "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {}\n"
	tests := []struct {
		name  string
		tools string
		steps []llmtest.Step
		place string
		none  bool
		told  string
	}{
		{"submit_test with a path", config.ToolsNative, []llmtest.Step{
			llmtest.Calls(llmtest.ToolCall{ID: "s", Name: "submit_test", Arguments: args(map[string]string{"content": test, "path": "calc/calc_mul_test.go"})}),
		}, "calc/calc_mul_test.go", false, ""},
		{"a refused path, then a good one", config.ToolsNative, []llmtest.Step{
			llmtest.Calls(llmtest.ToolCall{ID: "s", Name: "submit_test", Arguments: args(map[string]string{"content": test, "path": "calc/calc.go"})}),
			llmtest.Calls(llmtest.ToolCall{ID: "t", Name: "submit_test", Arguments: args(map[string]string{"content": test, "path": "calc/calc_mul_test.go"})}),
		}, "calc/calc_mul_test.go", false, `error: test path "calc/calc.go" is not one of the places tests may go`},
		{"a text block with path=", config.ToolsText, []llmtest.Step{
			llmtest.Text("Here:\n```go path=calc/calc_mul_test.go\n" + test + "```\n"),
		}, "calc/calc_mul_test.go", false, ""},
		{"a text block without a path goes to the default place", config.ToolsText, []llmtest.Step{
			llmtest.Text("```go\n" + test + "```\n"),
		}, "", false, ""},
		{"a text block at a refused place is told, then fixed", config.ToolsText, []llmtest.Step{
			llmtest.Text("```go path=../escape_test.go\n" + test + "```\n"),
			llmtest.Text("```go path=calc/calc_mul_test.go\n" + test + "```\n"),
		}, "calc/calc_mul_test.go", false, `error: test path "../escape_test.go"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "ivy")
			r.opts.Tools = tc.tools
			tester := r.tester(t, contract)
			r.srv.Enqueue(tc.steps...)
			p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
			require.NoError(t, err)
			assert.Equal(t, tc.none, p.None)
			assert.Equal(t, tc.place, p.Path)
			if !tc.none {
				assert.Equal(t, test, string(p.Content))
			}
			if tc.told != "" {
				var said []string
				for _, req := range r.srv.Requests() {
					for _, m := range req.Messages {
						said = append(said, m.Content)
					}
				}
				assert.Contains(t, strings.Join(said, "\n"), tc.told)
			}
		})
	}
}

func TestTheTesterIsToldWhereTestsMayGo(t *testing.T) {
	contract, _ := languages.Preset("go")
	native := testerPrompt(config.AgentSettings{}, contract)
	assert.Contains(t, native, "`**/*_test.go`")
	text := testerTextPrompt(config.AgentSettings{}, contract, "")
	assert.Contains(t, text, "```go path=pkg/example_test.go")
	none := contract
	none.Paths = nil
	assert.NotContains(t, testerPrompt(config.AgentSettings{}, none), "next to the code it tests")
}
