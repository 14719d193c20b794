package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// TestBotRunWithAnEndpointFromTheEnvironment runs `bot run --spec --repo` the way a user
// does, with OPENAI_BASE_URL pointing at an OpenAI-compatible fake.
func TestBotRunWithAnEndpointFromTheEnvironment(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":            "module example.com/calc\n\ngo 1.22\n",
		"calc.go":           "package calc\n\nfunc Add(a, b int) int { panic(\"todo\") }\n",
		".github/dixit.yml": "coders: 3\ntesters: 1\nreruns: 2\nmax_tester_retries: 1\nagents: {model: fake}\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "stub"}} {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	spec := filepath.Join(t.TempDir(), "spec.md")
	require.NoError(t, os.WriteFile(spec, []byte("Implement Add: it returns a + b.\n"), 0o644))

	srv := llmtest.NewServer(t, llmtest.WithAPIKey("sk-test"))
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return llmtest.Calls(llmtest.ToolCall{ID: "f", Name: "finish", Arguments: "{}"})
		}
		if req.Messages[0].Content != "" && bytes.Contains([]byte(req.Messages[0].Content), []byte("You write tests")) {
			test, _ := json.Marshal(map[string]string{"content": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 1) != 2 {\n\t\tt.Fatal()\n\t}\n}\n"})
			return llmtest.Calls(llmtest.ToolCall{ID: "s", Name: "submit_test", Arguments: string(test)})
		}
		code, _ := json.Marshal(map[string]string{"path": "calc.go", "content": "package calc\n\nfunc Add(a, b int) int { return a + b }\n"})
		return llmtest.Calls(llmtest.ToolCall{ID: "w", Name: "write_file", Arguments: string(code)})
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")

	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"run", "--spec", spec, "--repo", repo, "--state", t.TempDir(),
		"--build-cache", filepath.Join(os.TempDir(), "dixit-test-gocache")}, &stdout, &stderr)
	require.ErrorIs(t, err, cli.ErrStopped, "the run stopped for a human: %s", stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "live agents on "+repo)
	assert.Contains(t, out, "Outcome: TESTERS_EXHAUSTED")
	assert.Contains(t, out, "→ TOO_WEAK 3/3 pass")
	assert.Regexp(t, `Model: \d+ prompt \+ \d+ completion tokens`, out)
	assert.NotEmpty(t, srv.Requests())
}
