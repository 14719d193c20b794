package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/llm/llmtest"
)

// The fake model plays a population of coders c1…cN and testers t1…tM where every round
// is alike, so the figures measure the protocol's shape rather than luck: coder ck starts
// with Add wrong when a == k; in round r every tester's test checks Add(r, j), so coder
// cr alone fails it (IDEAL), fixes it in the next round, and the testers go on to the
// next coder. A coder's first solve takes eight replies (reading, writing, checking,
// finishing), a fix one; a tester's turn takes four (reading the code three times, then
// the test). Every reply waits latency before it answers.

// fakeModel is an llmtest server (real HTTP on loopback, streamed replies) answering every
// run of the benchmark.
type fakeModel struct {
	*llmtest.Server
	tb *llmtest.ProgramTB
}

func startModel(latency time.Duration) *fakeModel {
	tb := &llmtest.ProgramTB{}
	m := &fakeModel{Server: llmtest.NewServer(tb), tb: tb}
	m.Reply(func(req llmtest.RecordedRequest) llmtest.Step {
		step := script(req)
		step.Delay = latency
		return step
	})
	return m
}

// close stops the server; its errors are those it reported through the test hooks.
func (m *fakeModel) close() []string {
	return m.tb.Close()
}

var (
	coderOf  = regexp.MustCompile(`You are coder number (\d+)\.`)
	testerOf = regexp.MustCompile(`You check case number (\d+)\.`)
)

// script decides from the request alone: whose it is (the persona or direction in the
// system prompt), which turn (requests so far; thanks are no request) and which step of
// the turn (replies since the last user message).
func script(req llmtest.RecordedRequest) llmtest.Step {
	system := req.Messages[0].Content
	turn, step := 0, 0
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			step = 0
			if !strings.Contains(m.Content, "Thank you") {
				turn++
			}
		case "assistant":
			step++
		}
	}
	last := req.Messages[len(req.Messages)-1]
	if m := testerOf.FindStringSubmatch(system); m != nil {
		if last.Role == "user" && strings.Contains(last.Content, "write a probe") {
			return calls(tool("submit_test", map[string]string{"content": probe}))
		}
		return testerStep(atoi(m[1]), turn, step)
	}
	if m := coderOf.FindStringSubmatch(system); m != nil {
		return coderStep(atoi(m[1]), turn, step)
	}
	return llmtest.Step{Content: "I do not know who I am."}
}

func testerStep(j, turn, step int) llmtest.Step {
	if step < 3 {
		return calls(tool("read_file", map[string]string{"path": "calc.go"}))
	}
	test := fmt.Sprintf("package calc\n\nimport \"testing\"\n\nfunc TestAdd%dPlus%d(t *testing.T) {\n\tif got := Add(%d, %d); got != %d {\n\t\tt.Fatal(got)\n\t}\n}\n",
		turn, j, turn, j, turn+j)
	return calls(tool("submit_test", map[string]string{"content": test}))
}

func coderStep(k, turn, step int) llmtest.Step {
	if turn > 1 { // a fix: the right code, at once
		return calls(write(correct, turn), tool("finish", map[string]string{"summary": "fixed"}))
	}
	switch {
	case step < 5, step == 6:
		return calls(tool("read_file", map[string]string{"path": "calc.go"}))
	case step == 5:
		return calls(write(fmt.Sprintf("if a == %d {\n\t\treturn a + b + 1\n\t}\n\treturn a + b", k), turn))
	}
	return calls(tool("finish", map[string]string{"summary": "done"}))
}

const correct = "return a + b"

func write(body string, turn int) llmtest.ToolCall {
	code := fmt.Sprintf("package calc\n\n// turn %d\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\t%s\n}\n", turn, body)
	return tool("write_file", map[string]string{"path": "calc.go", "content": code})
}

// probe prints Add on a few inputs for the differential comparison.
const probe = "package calc\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n" +
	"func TestProbe(t *testing.T) {\n\tfor _, in := range [][2]int{{2, 3}, {0, 0}, {-1, 1}} {\n" +
	"\t\tfmt.Printf(\"dixit-probe {\\\"input\\\": [%d, %d], \\\"output\\\": %d}\\n\", in[0], in[1], Add(in[0], in[1]))\n\t}\n}\n"

func atoi(s string) int {
	n, _ := strconv.Atoi(s) // the pattern matched digits
	return n
}

func calls(cs ...llmtest.ToolCall) llmtest.Step { return llmtest.Step{ToolCalls: cs} }

func tool(name string, args map[string]string) llmtest.ToolCall {
	data, err := json.Marshal(args)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return llmtest.ToolCall{Name: name, Arguments: string(data)}
}
