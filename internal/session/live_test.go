package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/llm/llmtest"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// calcRepo is a real git repository with a stub to implement and a committed dixit.yml.
func calcRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { panic(\"todo\") }\n",
		// The maintainers' instructions for agents: every agent's first message has them.
		"AGENTS.md": "CANARY-INSTRUCTIONS: keep functions short.\n",
		".github/dixit.yml": `coders: 3
testers: 2
reruns: 2
max_rounds: 4
test: {preset: go, timeout: 20s}
agents:
  model: fake-model
  max_steps: 6
  coders:
    - {name: tea, persona: "You like tea."}
    - {name: coffee, persona: "You like coffee."}
    - {name: water, persona: "You like water."}
  testers:
    - {name: sum, direction: "Focus on sums."}
    - {name: zero, direction: "Focus on zero."}
`,
	}
	return commitFiles(t, dir, files)
}

func call(id, name string, args any) llmtest.ToolCall {
	data, _ := json.Marshal(args)
	return llmtest.ToolCall{ID: id, Name: name, Arguments: string(data)}
}

// population plays three coders (water starts with an off-by-one) and two testers through
// the real chat-completions wire format. Every test carries a CANARY-TEST mark and every
// piece of code a CANARY-CODE mark, so leaks can be looked for in every request.
func population(req llmtest.RecordedRequest) llmtest.Step {
	system := req.Messages[0].Content
	last := req.Messages[len(req.Messages)-1]
	turns := 0
	for _, m := range req.Messages {
		if m.Role == "user" {
			turns++
		}
	}
	if strings.Contains(system, "You write tests") && last.Role == "user" && strings.Contains(last.Content, "write a probe") {
		probe := "package calc\n\n// CANARY-TEST-probe\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n" +
			"func TestProbe(t *testing.T) {\n\tfor _, in := range [][2]int{{2, 3}, {0, 0}, {-1, 1}, {1 << 62, 1 << 62}} {\n" +
			"\t\tfmt.Printf(\"dixit-probe {\\\"input\\\": [%d, %d], \\\"output\\\": %d}\\n\", in[0], in[1], Add(in[0], in[1]))\n\t}\n}\n"
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{call("p1", "submit_test", map[string]string{"content": probe})}}
	}
	if strings.Contains(system, "You write tests") {
		name := "sum"
		test := "func TestAddSum(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n"
		if strings.Contains(system, "Focus on zero.") {
			name = "zero"
			test = "func TestAddZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal(Add(0, 0))\n\t}\n}\n"
		}
		if turns > 1 { // later proposals: everyone passes these
			test = "func TestAddAgain(t *testing.T) {\n\tif Add(4, 4) != 8 {\n\t\tt.Fatal(Add(4, 4))\n\t}\n}\n"
		}
		if last.Role == "user" && turns == 1 {
			return llmtest.Step{ToolCalls: []llmtest.ToolCall{call("r1", "read_file", map[string]string{"path": "calc.go"})}}
		}
		content := fmt.Sprintf("package calc\n\n// CANARY-TEST-%s-%d\nimport \"testing\"\n\n%s", name, turns, test)
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{call("s1", "submit_test", map[string]string{"content": content})}}
	}
	if last.Role == "tool" {
		return llmtest.Step{ToolCalls: []llmtest.ToolCall{call("f1", "finish", map[string]string{"summary": "done"})}}
	}
	body := "a + b"
	if strings.Contains(system, "You like water.") && turns == 1 {
		body = "a + b + 1"
	}
	code := fmt.Sprintf("package calc\n\n// CANARY-CODE-%d\n\n// Add returns a + b.\nfunc Add(a, b int) int { return %s }\n", turns, body)
	return llmtest.Step{ToolCalls: []llmtest.ToolCall{
		call("w1", "write_file", map[string]string{"path": "calc.go", "content": code}),
		call("c1", "run_command", map[string]string{"command": "go vet ./..."}),
	}}
}

func TestLiveRunOnARepositoryWithAFakeModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply(population)
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	repo := calcRepo(t)
	opts := session.Options{
		Spec: writeSpec(t), Repo: repo, Client: client,
		StateDir: t.TempDir(), BuildCache: buildCache, ResultCache: sharedVerdicts(),
	}
	out, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	res := out.Result
	assert.Equal(t, orchestrate.TestersExhausted, res.Outcome, res.Reason)
	var vetted []string
	for _, v := range res.Vetted {
		vetted = append(vetted, v.ID+" failed by "+strings.Join(v.FailedBy, ","))
	}
	assert.Equal(t, []string{"sum-1 failed by water", "zero-1 failed by water"}, vetted)
	assert.Equal(t, "llm", out.Summary.Agents)
	sp := out.Summary.Spend
	assert.Positive(t, sp.PromptTokens, "tokens are accounted")
	assert.Positive(t, sp.ByAgent["water"].Completion)
	assert.Positive(t, sp.ByAgent["sum"].Prompt)
	assert.Positive(t, sp.ByRound[0].Prompt, "the first solves are round 0")
	md, err := os.ReadFile(out.Report)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Spend")
	assert.Contains(t, string(md), "instructions for coding agents, from the base: `AGENTS.md`", "the report names the files the agents were given")
	assert.Equal(t, []string{"AGENTS.md"}, out.Summary.Instructions)
	cmp := out.Summary.Comparison
	require.NotNil(t, cmp.Differential, "a tester wrote the probe once the run was over: %s", cmp.ProbeNote)
	assert.Equal(t, "tester sum", cmp.ProbeBy)
	assert.Equal(t, 4, cmp.Differential.Inputs, "the probe ran on the implementations")
	assert.Empty(t, cmp.Differential.Disagreements, "all three now return a + b")

	requests := srv.Requests()
	first := map[string]bool{} // each agent's first question, by its instructions
	for _, r := range requests {
		if len(r.Messages) < 2 || first[r.Messages[0].Content] {
			continue
		}
		first[r.Messages[0].Content] = true
		assert.Contains(t, r.Messages[1].Content, "CANARY-INSTRUCTIONS: keep functions short.",
			"the base's AGENTS.md is in every agent's first message (request %d)", r.Index)
	}
	assert.Len(t, first, 5, "three coders and two testers")
	seen := map[string]bool{}
	forbidden := regexp.MustCompile(`(?i)\b(coders?|testers?|agents?|other (models|implementations)|majority|votes?|scores?|games?|players?|pass rate)\b`)
	for _, r := range requests {
		coder := strings.Contains(r.Messages[0].Content, "You are implementing")
		for _, m := range r.Messages {
			text := m.Content
			for _, c := range m.ToolCalls {
				text += "\n" + c.Function.Arguments
			}
			seen[fmt.Sprintf("coder=%v code=%v test=%v", coder, strings.Contains(text, "CANARY-CODE"), strings.Contains(text, "CANARY-TEST"))] = true
			if coder {
				assert.NotContains(t, text, "CANARY-TEST", "no test text reaches a coder (request %d)", r.Index)
			} else {
				assert.NotContains(t, text, "CANARY-CODE", "no coder's code reaches a tester (request %d)", r.Index)
			}
			if m.Role == "system" || m.Role == "user" {
				// The instruction file's name is the repository's, not a word about the game.
				assert.NotRegexp(t, forbidden, strings.ReplaceAll(m.Content, "AGENTS.md", ""), "request %d says nothing of the game", r.Index)
			}
		}
		for _, tool := range r.Tools {
			assert.NotRegexp(t, forbidden, tool.Function.Description)
		}
	}

	assert.True(t, seen["coder=true code=true test=false"], "coders do see their own code: the canaries are live")
	assert.True(t, seen["coder=false code=false test=true"], "testers do see their own tests")

	// The same command resumes the finished run without asking the model anything.
	again, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, res.Outcome, again.Result.Outcome)
	assert.Len(t, srv.Requests(), len(requests), "no reply is paid for twice")
}

func writeSpec(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "spec.md")
	require.NoError(t, os.WriteFile(p, []byte("Implement `Add(a, b int) int` in package calc: it returns the sum.\n"), 0o644))
	return p
}

// TestAResumedRunKeepsItsSpec: an issue edited while its run was cut does not change
// what the run's agents are told when it resumes.
func TestAResumedRunKeepsItsSpec(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply(population)
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	files, head, err := gitstate.ReadHead(calcRepo(t))
	require.NoError(t, err)
	var settings config.Settings
	for _, f := range files {
		if f.Path == ".github/dixit.yml" {
			settings, err = config.Parse(f.Content)
			require.NoError(t, err)
		}
	}
	require.NotEmpty(t, settings.Agents.Coders)
	const liveSpec = "Implement `Add(a, b int) int` in package calc: it returns the sum.\n"
	cut := errors.New("cut")
	opts := session.Options{RunID: "issue-7", Client: client, StateDir: t.TempDir(), BuildCache: buildCache,
		AfterAppend: func(seq int) error {
			if seq == 3 {
				return cut
			}
			return nil
		}}
	in := session.Input{Spec: "SPEC-AS-LABELLED: " + liveSpec, Files: files, Head: head, Settings: settings, Source: "test"}
	_, err = session.RunInput(context.Background(), opts, in)
	require.ErrorIs(t, err, cut)
	before := len(srv.Requests())

	opts.AfterAppend = nil
	in.Spec = "SPEC-AS-EDITED-LATER: " + liveSpec
	_, err = session.RunInput(context.Background(), opts, in)
	require.NoError(t, err)
	after := srv.Requests()[before:]
	require.NotEmpty(t, after)
	for _, r := range after {
		text := ""
		for _, m := range r.Messages {
			text += m.Content
		}
		assert.NotContains(t, text, "SPEC-AS-EDITED-LATER", "request %d", r.Index)
		assert.Contains(t, text, "SPEC-AS-LABELLED", "request %d", r.Index)
	}
}

// One request in five to the model fails (a 500, a 429 with Retry-After, a 503, a dropped
// connection, in turn): the run still completes with the same outcome and the same vetted
// tests as a clean one, and every fault costs exactly one more request: no storm. The
// faulty run finds the clean run's verdicts in their shared cache, as a server's runs
// do: the faults are the model's, and the judge's work would be the same twice.
func TestLiveRunSurvivesAFaultyModel(t *testing.T) {
	t.Parallel()
	verdicts := sharedVerdicts()
	run := func(faulty bool) (*session.Outcome, int, int) {
		srv := llmtest.NewServer(t)
		var faults atomic.Int32
		srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
			if faulty && req.Index%5 == 4 {
				switch faults.Add(1) % 5 {
				case 1:
					return llmtest.Step{Status: 500}
				case 2:
					return llmtest.Step{Status: 429, Header: http.Header{"Retry-After": {"0"}}}
				case 3:
					return llmtest.Step{Status: 503}
				case 4: // no answer within the attempt's timeout
					return llmtest.Step{Delay: time.Minute, ToolCalls: population(req).ToolCalls}
				default:
					return llmtest.Step{Drop: true}
				}
			}
			return population(req)
		})
		cfg := llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey())
		cfg.RequestTimeout = 3 * time.Second // the timeout fault holds its answer for a minute
		client, err := llm.NewOpenAI(cfg)
		require.NoError(t, err)
		out, err := session.RunLive(context.Background(), session.Options{
			Spec: writeSpec(t), Repo: calcRepo(t), Client: client, StateDir: t.TempDir(), BuildCache: buildCache,
			ResultCache: verdicts,
		})
		require.NoError(t, err, "faulty=%v", faulty)
		return out, len(srv.Requests()), int(faults.Load())
	}
	clean, cleanRequests, _ := run(false)
	faulty, faultyRequests, faults := run(true)
	require.Positive(t, faults)
	assert.Equal(t, clean.Result.Outcome, faulty.Result.Outcome)
	ids := func(o *session.Outcome) []string {
		var out []string
		for _, v := range o.Result.Vetted {
			out = append(out, v.ID)
		}
		return out
	}
	assert.Equal(t, ids(clean), ids(faulty))
	assert.Equal(t, cleanRequests+faults, faultyRequests, "each fault is retried once, nothing more")
	t.Logf("%d requests clean, %d with %d faults (%.0f%%)", cleanRequests, faultyRequests, faults, 100*float64(faults)/float64(faultyRequests))
}

// greetRepo is a repository with Hello to implement, for the recorded Ollama replies
// (they write greet.go and submit a test of Hello). silent is a coder that never writes.
func greetRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.22\n",
		"greet.go": "package greet\n\n// Hello greets name.\nfunc Hello(name string) string { panic(\"todo\") }\n",
		".github/dixit.yml": `coders: 3
testers: 1
reruns: 1
max_rounds: 3
max_coder_retries: 1
test: {preset: go, timeout: 20s}
agents:
  model: qwen2.5-coder:7b
  max_steps: 6
  coders:
    - {name: tea, persona: "You like tea."}
    - {name: coffee, persona: "You like coffee."}
    - {name: silent, persona: "You say little."}
  testers:
    - {name: greeter}
`,
	}
	return commitFiles(t, dir, files)
}

// TestLiveRunAgainstAModelThatWritesItsCallsAsText: every agent's model answers as
// Ollama serves qwen2.5-coder, the tool call written as JSON text in content (the
// recorded replies of internal/llm/llmtest). The coders that call write_file that way
// have solutions that differ from the base; the tester's call in a ```json fence
// submits the Go test it holds, which enters the suite; the coder that never writes
// is nudged, commits nothing, fails that test and is stuck, and its unchanged base is
// never picked. The same command resumes the finished run without a request.
func TestLiveRunAgainstAModelThatWritesItsCallsAsText(t *testing.T) {
	srv := llmtest.NewServer(t)
	const nudge = "Nothing was written; use the tools to change files."
	var nudged atomic.Int32
	srv.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		system, last := req.Messages[0].Content, req.Messages[len(req.Messages)-1]
		switch {
		case strings.Contains(system, "You write tests"):
			return llmtest.Recorded("ollama-qwen2.5-coder-call-in-json-fence-stream")
		case strings.Contains(system, "You say little."):
			if last.Content == nudge {
				nudged.Add(1)
			}
			return llmtest.Text("The code already does what the specification asks.")
		case last.Role == "user":
			return llmtest.Recorded("ollama-qwen2.5-coder-call-as-json-stream")
		}
		return llmtest.Text("I wrote greet.go.")
	})
	client, err := llm.NewOpenAI(llm.DefaultOpenAIConfig(srv.URL(), srv.APIKey()))
	require.NoError(t, err)
	opts := session.Options{Spec: writeSpec(t), Repo: greetRepo(t), Client: client, StateDir: t.TempDir(), BuildCache: buildCache}
	out, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	res := out.Result

	require.Len(t, res.Vetted, 1, "the tester's test separated the coders: %s", res.Reason)
	test := string(res.Vetted[0].Content)
	assert.True(t, strings.HasPrefix(test, "package greet\n"), "the Go test the call held, not the JSON: %q", test)
	assert.Contains(t, test, "func TestHelloGreetsByName")
	assert.Equal(t, []string{"silent"}, res.Vetted[0].FailedBy)
	assert.Equal(t, orchestrate.CodersStuck, res.Outcome)
	assert.Contains(t, res.Reason, "coder silent")

	ws, err := gitstate.Open(filepath.Join(out.RunDir, "workshop.git"))
	require.NoError(t, err)
	base, _, err := ws.Ref("refs/dixit/" + filepath.Base(out.RunDir) + "/base")
	require.NoError(t, err)
	touched := map[string][]string{}
	for _, d := range out.Summary.Comparison.Touched {
		for _, f := range d.Files {
			touched[d.Coder] = append(touched[d.Coder], f.Path)
		}
	}
	for _, c := range res.Coders {
		head, _, err := ws.Ref("refs/dixit/" + filepath.Base(out.RunDir) + "/coders/" + c.Name)
		require.NoError(t, err)
		if c.Name == "silent" {
			assert.Equal(t, base, c.Commit, "the silent coder's work is still the base")
			assert.Empty(t, head, "and no solution of it was ever committed")
			assert.Empty(t, touched[c.Name])
			continue
		}
		assert.NotEqual(t, base, c.Commit, "%s's solution differs from the base", c.Name)
		assert.Equal(t, []string{"greet.go"}, touched[c.Name], c.Name)
		files, err := ws.Files(c.Commit)
		require.NoError(t, err)
		for _, f := range files {
			if f.Path == "greet.go" {
				assert.Contains(t, string(f.Content), `return "Hello, " + name`)
			}
		}
	}
	assert.Positive(t, int(nudged.Load()), "the silent coder was told that nothing was written")
	assert.NotEqual(t, "silent", out.Summary.Comparison.Pick.Coder)

	requests := len(srv.Requests())
	again, err := session.RunLive(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, res.Outcome, again.Result.Outcome)
	assert.Len(t, srv.Requests(), requests, "no reply is paid for twice")
}

// commitFiles makes dir a git repository whose one commit holds files, and returns dir.
func commitFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	repo, err := git.PlainInit(dir, false)
	require.NoError(t, err)
	wt, err := repo.Worktree()
	require.NoError(t, err)
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		_, err := wt.Add(name)
		require.NoError(t, err)
	}
	_, err = wt.Commit("stub", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1, 0)}})
	require.NoError(t, err)
	return dir
}
