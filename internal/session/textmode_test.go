package session_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// TestLiveRunAgainstAModelWithoutToolCalling: the endpoint answers every request that
// offers tools as Ollama does for a model without the tools capability (400 "does not
// support tools"). With agents.tools: auto (the default) each agent turns to the text
// protocol: the coders write greet.go as a fenced block naming its path, and their
// solutions differ from the base; the tester's test, one ```go block, enters the suite;
// the coder that writes nothing commits nothing and is stuck. The same command resumes
// the finished run without a request.
func TestLiveRunAgainstAModelWithoutToolCalling(t *testing.T) {
	const test = "package greet\n\nimport \"testing\"\n\nfunc TestHelloGreetsByName(t *testing.T) {\n" +
		"\tif got := Hello(\"Ada\"); got != \"Hello, Ada\" {\n\t\tt.Fatalf(\"Hello(Ada) = %q\", got)\n\t}\n}\n"
	const impl = "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"Hello, \" + name }\n"
	srv := llmtest.NewServer(t)
	var refused, withoutTools atomic.Int32
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		if len(req.Tools) > 0 {
			refused.Add(1)
			return llmtest.Step{Status: http.StatusBadRequest, Error: &llmtest.APIError{
				Message: "registry.ollama.ai/library/gemma3:4b does not support tools", Type: "api_error"}}
		}
		withoutTools.Add(1)
		system, last := req.Messages[0].Content, req.Messages[len(req.Messages)-1]
		switch {
		case strings.Contains(system, "You write tests"):
			return llmtest.Text("Here is a test.\n\n```go\n" + test + "```\n")
		case strings.Contains(system, "You say little."):
			return llmtest.Text("The code already does what the specification asks.")
		case last.Role == "user" && !strings.HasPrefix(last.Content, "Applied your reply"):
			return llmtest.Text("File: greet.go\n```go\n" + impl + "```\nDONE")
		}
		return llmtest.Text("DONE")
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	opts := session.Options{Spec: writeSpec(t), Repo: greetRepo(t), Client: client, StateDir: t.TempDir(), BuildCache: buildCache}
	out, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	res := out.Result

	require.Len(t, res.Vetted, 1, "the tester's test separated the coders: %s", res.Reason)
	assert.Equal(t, test, string(res.Vetted[0].Content))
	assert.Equal(t, []string{"silent"}, res.Vetted[0].FailedBy)
	assert.Equal(t, orchestrate.CodersStuck, res.Outcome)
	assert.Equal(t, int32(4), refused.Load(), "each agent offered tools once: three coders and a tester")
	assert.Positive(t, int(withoutTools.Load()))

	ws, err := gitstate.Open(filepath.Join(out.RunDir, "workshop.git"))
	require.NoError(t, err)
	base, _, err := ws.Ref("refs/dixit/" + filepath.Base(out.RunDir) + "/base")
	require.NoError(t, err)
	for _, c := range res.Coders {
		if c.Name == "silent" {
			assert.Equal(t, base, c.Commit, "the silent coder's work is still the base")
			continue
		}
		assert.NotEqual(t, base, c.Commit, "%s's solution differs from the base", c.Name)
		files, err := ws.Files(c.Commit)
		require.NoError(t, err)
		for _, f := range files {
			if f.Path == "greet.go" {
				assert.Equal(t, impl, string(f.Content), c.Name)
			}
		}
	}

	requests := len(srv.Requests())
	again, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, res.Outcome, again.Result.Outcome)
	assert.Len(t, srv.Requests(), requests, "no reply is paid for twice, and no tools are offered again")
}
