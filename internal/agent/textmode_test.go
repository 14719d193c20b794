package agent

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Models without tool calling: the text protocol (agents.tools: text, or auto once the
// endpoint refused tools).

const twoFilesAndADiff = "Here is the implementation.\n\n" +
	"```go path=calc.go\npackage x\n\nfunc Add(a, b int) int { return a + b }\n```\n\n" +
	"File: `util/neg.go`\n```go\npackage util\n\nfunc Neg(a int) int { return -a }\n```\n\n" +
	"```diff\n--- a/go.mod\n+++ b/go.mod\n@@ -1 +1,3 @@\n module x\n+\n+go 1.22\n```\n"

// ollamaNoTools is Ollama's answer to a request offering tools to a model without the
// tools capability (ollama/ollama#5793, #14795).
var ollamaNoTools = llmtest.Step{Status: http.StatusBadRequest, Error: &llmtest.APIError{
	Message: "registry.ollama.ai/library/gemma3:4b does not support tools", Type: "api_error"}}

func TestATextCoderWritesTwoFilesAndADiff(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsText
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Text(twoFilesAndADiff), llmtest.Text("All three changes are in.\nDONE"))
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)

	got := files(t, r.opts.Workshop, commit)
	assert.NotEqual(t, r.base, commit, "the solution is not the base")
	assert.Equal(t, "package x\n\nfunc Add(a, b int) int { return a + b }\n", got["calc.go"])
	assert.Equal(t, "package util\n\nfunc Neg(a int) int { return -a }\n", got["util/neg.go"])
	assert.Equal(t, "module x\n\ngo 1.22\n", got["go.mod"], "the diff applied to the base's go.mod")

	reqs := r.srv.Requests()
	require.Len(t, reqs, 2)
	for _, req := range reqs {
		assert.Empty(t, req.Tools, "a text-mode request offers no tools")
		assert.Contains(t, req.Messages[0].Content, "write a line DONE", "the text protocol's instructions")
		assert.Contains(t, req.Messages[0].Content, "go.mod", "the repository's files are listed")
	}
	told := lastUser(t, r, 1)
	assert.Contains(t, told, "created calc.go")
	assert.Contains(t, told, "created util/neg.go")
	assert.Contains(t, told, "replaced go.mod")
	assert.Zero(t, c.failed)
}

func TestATextCoderReadsWhyAPathWasRefusedAndCorrectsItself(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsText
	c := r.coder(t)
	r.srv.Enqueue(
		llmtest.Text("```yaml path=.github/workflows/ci.yml\non: push\n```\n"+
			"```go path=../escape.go\npackage x\n```\n"+
			"```go\npackage x\n```\nDONE"),
		llmtest.Text("```go path=x.go\npackage x\n```\nDONE"),
	)
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)

	told := lastUser(t, r, 1)
	assert.Contains(t, told, "error: .github/workflows/ci.yml cannot be written: the repository's CI workflows")
	assert.Contains(t, told, "error: ", "../escape.go is refused")
	assert.Contains(t, told, "../escape.go")
	assert.Contains(t, told, "error: block 3 names no file")
	assert.Len(t, r.srv.Requests(), 2, "a refused block keeps the turn going despite DONE; the second DONE ends it")

	got := files(t, r.opts.Workshop, commit)
	assert.Equal(t, "package x\n", got["x.go"])
	assert.NotContains(t, got, ".github/workflows/ci.yml")
	assert.NoFileExists(t, filepath.Join(filepath.Dir(r.dir), "escape.go"))
}

// A text coder that writes nothing is nudged once in the protocol's words, then its
// turn is a failed attempt that commits nothing.
func TestATextCoderThatWritesNothingIsNudgedOnce(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsText
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Text("I would add a function Add."), llmtest.Text("DONE"))
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Equal(t, r.base, commit)
	require.Len(t, r.srv.Requests(), 2)
	assert.Equal(t, nudgeCoderText, lastUser(t, r, 1))
	assert.Equal(t, 1, c.failed)
}

// A reply cut off inside a block writes no half file.
func TestATextCoderWritesNoBlockCutOffBeforeItsFence(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsText
	c := r.coder(t)
	r.srv.Enqueue(llmtest.Step{Content: "```go path=x.go\npackage x\n\nfunc Add(", FinishReason: "length"},
		llmtest.Text("```go path=x.go\npackage x\n```\nDONE"))
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Contains(t, lastUser(t, r, 1), "error: block 1 has no closing fence, so it was not written")
	assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
}

func TestATextTesterReadsAFileThenItsBlockIsSubmitted(t *testing.T) {
	contract, _ := languages.Preset("go")
	r := newRig(t, "ivy")
	r.opts.Tools = config.ToolsText
	tester := r.tester(t, contract)
	test := "package x\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n"
	r.srv.Enqueue(llmtest.Text("Let me look first.\nREAD go.mod"), llmtest.Text("Here is my test.\n```go\n"+test+"```\n"))
	p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
	require.NoError(t, err)
	require.False(t, p.None)
	assert.Equal(t, test, string(p.Content))

	reqs := r.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Empty(t, reqs[0].Tools)
	assert.Contains(t, reqs[0].Messages[0].Content, "READ", "the instructions say how to read a file")
	assert.Contains(t, reqs[0].Messages[0].Content, "go.mod", "and list the repository's files")
	assert.Contains(t, lastUser(t, r, 1), "READ go.mod:\n```\nmodule x\n```")
}

// With agents.tools: auto, an endpoint that refuses tools turns the agent to the text
// protocol for the rest of the run; the switch is journalled, so a resumed run asks
// the same requests and has them answered from the journal.
func TestAutoTurnsToTextWhenTheEndpointRefusesToolsAndAResumeReplays(t *testing.T) {
	r := newRig(t, "amber")
	logs := r.logged()
	c := r.coder(t)
	r.srv.Enqueue(ollamaNoTools, llmtest.Text(twoFilesAndADiff), llmtest.Text("DONE"))
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Contains(t, files(t, r.opts.Workshop, commit)["calc.go"], "func Add")
	assert.Contains(t, logs.String(), "the agent uses the text protocol from now on")
	assert.True(t, c.Stats().Text)
	assert.Equal(t, 2, c.Stats().Replies, "the refused request is no reply")

	reqs := r.srv.Requests()
	require.Len(t, reqs, 3)
	assert.NotEmpty(t, reqs[0].Tools, "the first request offers tools")
	assert.Empty(t, reqs[1].Tools, "after the refusal, none")
	assert.Empty(t, reqs[2].Tools)

	// The same run resumed in a new process: a new coder over the same journal.
	r.dir = filepath.Join(t.TempDir(), "amber")
	again := r.coder(t)
	assert.True(t, again.Stats().Text, "the journalled switch holds")
	replayed, err := again.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Len(t, r.srv.Requests(), 3, "every request of the resumed turn was answered from the journal")
	assert.Equal(t, files(t, r.opts.Workshop, commit), files(t, r.opts.Workshop, replayed))
	assert.Zero(t, again.replies.live)
}

// agents.tools: native never turns to text: the refusal is the run's error, in the
// server's words.
func TestNativeDoesNotTurnToText(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsNative
	c := r.coder(t)
	r.srv.Enqueue(ollamaNoTools)
	_, err := c.Solve(context.Background(), solve1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not support tools")
	assert.Len(t, r.srv.Requests(), 1)
}

func TestParseTextFindsPathsWhereModelsPutThem(t *testing.T) {
	for name, tc := range map[string]struct{ reply, path string }{
		"path attribute":        {"```go path=a/b.go\nx\n```", "a/b.go"},
		"file attribute":        {"```python file=\"t.py\"\nx\n```", "t.py"},
		"second word":           {"```go calc.go\nx\n```", "calc.go"},
		"lang:path":             {"```go:calc.go\nx\n```", "calc.go"},
		"bare path":             {"```calc.go\nx\n```", "calc.go"},
		"File: line before":     {"File: calc.go\n\n```go\nx\n```", "calc.go"},
		"bold name before":      {"**calc.go**\n```go\nx\n```", "calc.go"},
		"heading before":        {"### `src/calc.go`\n```go\nx\n```", "src/calc.go"},
		"first line comment":    {"```go\n// path: calc.go\nx\n```", "calc.go"},
		"a label is no path":    {"```go\nx\n```", ""},
		"prose is no path":      {"Here is the code for the calculator:\n```go\nx\n```", ""},
		"a word is no path":     {"Done.\n```go\nx\n```", ""},
		"File: names any file":  {"File: Makefile\n```\nx\n```", "Makefile"},
		"a dot file":            {"```gitignore path=.gitignore\nx\n```", ".gitignore"},
		"longer fence inside":   {"````md path=README.md\n```\nx\n```\n````", "README.md"},
		"tilde fence with path": {"~~~go path=calc.go\nx\n~~~", "calc.go"},
	} {
		t.Run(name, func(t *testing.T) {
			blocks, _ := parseText(tc.reply)
			require.Len(t, blocks, 1)
			assert.Equal(t, tc.path, blocks[0].path)
			assert.True(t, blocks[0].closed)
			assert.False(t, strings.Contains(blocks[0].body, "path:"), "a header line is not content")
		})
	}
	_, done := parseText("```go path=x.go\nDONE\n```\n")
	assert.False(t, done, "DONE inside a block is content")
	_, done = parseText("All set.\n**DONE**")
	assert.True(t, done)
}

// Diffs as models write them: git's, one creating a file, one deleting it, and one
// that does not apply, which is refused with the reason and changes nothing.
func TestATextCoderAppliesDiffsAndRefusesOneThatDoesNotApply(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsText
	c := r.coder(t)
	r.srv.Enqueue(
		llmtest.Text("```diff\ndiff --git a/go.mod b/go.mod\nindex 1..2 100644\n--- a/go.mod\n+++ b/go.mod\n"+
			"@@ -1 +1 @@\n-module x\n+module example.com/x\n```\n"+
			"```diff\n--- /dev/null\n+++ b/new.go\n@@ -0,0 +1,2 @@\n+package x\n+// new\n```\n"+
			"```patch\n--- a/missing.go\n+++ b/missing.go\n@@ -1 +1 @@\n-a\n+b\n```\n"+
			"```diff\n--- a/go.mod\n+++ b/go.mod\n@@ -1 +1 @@\n-module y\n+module z\n```\n"),
		llmtest.Text("```diff\n--- a/new.go\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-package x\n-// new\n```\n"+
			"```go path=x.go\npackage x\n```\nDONE"),
	)
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)

	told := lastUser(t, r, 1)
	assert.Contains(t, told, "replaced go.mod")
	assert.Contains(t, told, "created new.go")
	assert.Contains(t, told, "error: the diff of missing.go was not applied: missing.go does not exist")
	assert.Contains(t, told, "error: the diff of go.mod does not apply to the file as it is")
	got := files(t, r.opts.Workshop, commit)
	assert.Equal(t, "module example.com/x\n", got["go.mod"], "the diff that did not apply changed nothing")
	assert.NotContains(t, got, "new.go", "deleted by the second reply's diff")
	assert.Equal(t, "package x\n", got["x.go"])
}

// A tester's READ is confined to the base revision like read_file.
func TestATextTesterCannotReadOutsideTheRepository(t *testing.T) {
	contract, _ := languages.Preset("go")
	r := newRig(t, "ivy")
	r.opts.Tools = config.ToolsText
	tester := r.tester(t, contract)
	r.srv.Enqueue(llmtest.Text("READ ../../../etc/passwd"), llmtest.Text("```go\npackage x\n```"))
	p, err := tester.Propose(context.Background(), orchestrate.Turn{Message: "Please propose one more test.", Draw: 1})
	require.NoError(t, err)
	assert.Equal(t, "package x\n", string(p.Content))
	told := lastUser(t, r, 1)
	assert.Contains(t, told, "error: ")
	assert.NotContains(t, told, "root:")
}

// A coder that keeps writing only what is refused ends its turn as a failed attempt
// after maxBadCalls such replies, as one whose tool calls keep failing does.
func TestATextCoderWhoseBlocksAreAllRefusedStops(t *testing.T) {
	r := newRig(t, "amber")
	r.opts.Tools = config.ToolsText
	c := r.coder(t)
	for range maxBadCalls {
		r.srv.Enqueue(llmtest.Text("```yaml path=.github/workflows/ci.yml\non: push\n```\nDONE"))
	}
	commit, err := c.Solve(context.Background(), solve1)
	require.NoError(t, err)
	assert.Equal(t, r.base, commit)
	assert.Len(t, r.srv.Requests(), maxBadCalls)
	assert.Equal(t, 1, c.failed)
}

// Each server's words for "no tools here" turn an auto agent to the text protocol.
func TestAutoTurnsToTextOnEachServersRefusal(t *testing.T) {
	for name, refusal := range map[string]llmtest.Step{
		"ollama": ollamaNoTools,
		"vllm without a tool-call parser": {Status: http.StatusBadRequest, Error: &llmtest.APIError{
			Message: `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`,
			Type:    "BadRequestError"}},
		"llama.cpp without --jinja": {Status: http.StatusInternalServerError, Error: &llmtest.APIError{
			Message: "tools param requires --jinja flag", Type: "server_error"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, "amber")
			c := r.coder(t)
			r.srv.Enqueue(refusal, llmtest.Text("```go path=x.go\npackage x\n```\nDONE"))
			commit, err := c.Solve(context.Background(), solve1)
			require.NoError(t, err)
			assert.Equal(t, "package x\n", files(t, r.opts.Workshop, commit)["x.go"])
			assert.True(t, c.text)
		})
	}
	t.Run("any other 400 stays an error", func(t *testing.T) {
		r := newRig(t, "amber")
		c := r.coder(t)
		r.srv.Enqueue(llmtest.Step{Status: http.StatusBadRequest, Error: &llmtest.APIError{
			Message: "Invalid value for 'temperature'", Type: "invalid_request_error"}})
		_, err := c.Solve(context.Background(), solve1)
		require.Error(t, err)
		assert.False(t, c.text)
	})
}

func TestReadRequestsAreLinesOutsideBlocks(t *testing.T) {
	reply := "READ calc.go\n```go path=notes.go\nREAD not/this.go\n```\nREAD `util/neg.go`\n"
	assert.Equal(t, []string{"calc.go", "util/neg.go"}, readRequests(reply))
}
