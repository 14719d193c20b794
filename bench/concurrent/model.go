package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// fakeModel is one llmtest server, the fake endpoint the package tests use, answering
// every run with the same scripted population. It speaks the real wire format (streamed
// server-sent events) over loopback HTTP, so the runs' clients do all their usual work.
type fakeModel struct {
	*llmtest.Server
	tb     *llmtest.ProgramTB
	served atomic.Int64 // requests the script answered
}

func startModel() *fakeModel {
	tb := &llmtest.ProgramTB{}
	m := &fakeModel{Server: llmtest.NewServer(tb), tb: tb}
	m.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		m.served.Add(1)
		return script(req)
	})
	return m
}

// close stops the server; its errors are those it reported through the test hooks.
func (m *fakeModel) close() []string {
	return m.tb.Close()
}

// retained is what the server keeps of the requests it recorded (it keeps them all,
// for tests to inspect): their raw bodies, a lower bound of its share of the RSS.
func (m *fakeModel) retained() int64 {
	var n int64
	for _, r := range m.Requests() {
		n += int64(len(r.Body))
	}
	return n
}

// script plays the population of internal/session's live test: coders tea, coffee and
// water (water adds one in its first attempt) and testers sum and zero. It decides from
// the request alone, so one server serves any number of runs at once.
func script(req llmtest.RecordedRequest) llmtest.Step {
	system := req.Messages[0].Content
	last := req.Messages[len(req.Messages)-1]
	turn := 0 // the user messages so far: which turn of the agent this is
	for _, m := range req.Messages {
		if m.Role == "user" {
			turn++
		}
	}
	if !strings.Contains(system, "You write tests") {
		return coderStep(system, last, turn)
	}
	if last.Role == "user" && strings.Contains(last.Content, "write a probe") {
		return calls(tool("submit_test", map[string]string{"content": probe}))
	}
	if last.Role == "user" && turn == 1 { // look at the stub before the first test
		return calls(tool("read_file", map[string]string{"path": "calc.go"}))
	}
	name, body := "sum", "func TestAddSum(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n"
	if strings.Contains(system, "Focus on zero.") {
		name, body = "zero", "func TestAddZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal(Add(0, 0))\n\t}\n}\n"
	}
	if turn > 1 { // later proposals pass for everyone, so the testers run dry
		body = "func TestAddAgain(t *testing.T) {\n\tif Add(4, 4) != 8 {\n\t\tt.Fatal(Add(4, 4))\n\t}\n}\n"
	}
	test := fmt.Sprintf("package calc\n\n// test %s, turn %d\nimport \"testing\"\n\n%s", name, turn, body)
	return calls(tool("submit_test", map[string]string{"content": test}))
}

// coderStep writes Add and vets it, then finishes once the tools have answered.
func coderStep(system string, last llmtest.Message, turn int) llmtest.Step {
	if last.Role == "tool" {
		return calls(tool("finish", map[string]string{"summary": "done"}))
	}
	sum := "a + b"
	if strings.Contains(system, "You like water.") && turn == 1 {
		sum = "a + b + 1"
	}
	code := fmt.Sprintf("package calc\n\n// turn %d\n\n// Add returns a + b.\nfunc Add(a, b int) int { return %s }\n", turn, sum)
	return calls(
		tool("write_file", map[string]string{"path": "calc.go", "content": code}),
		tool("run_command", map[string]string{"command": "go vet ./..."}),
	)
}

// probe prints Add on a few inputs for the differential comparison.
const probe = "package calc\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n" +
	"func TestProbe(t *testing.T) {\n\tfor _, in := range [][2]int{{2, 3}, {0, 0}, {-1, 1}, {1 << 62, 1 << 62}} {\n" +
	"\t\tfmt.Printf(\"dixit-probe {\\\"input\\\": [%d, %d], \\\"output\\\": %d}\\n\", in[0], in[1], Add(in[0], in[1]))\n\t}\n}\n"

func calls(cs ...llmtest.ToolCall) llmtest.Step { return llmtest.Step{ToolCalls: cs} }

func tool(name string, args map[string]string) llmtest.ToolCall {
	data, err := json.Marshal(args)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return llmtest.ToolCall{Name: name, Arguments: string(data)}
}
