package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var _ orchestrate.Tester = (*Tester)(nil)

// maxTest bounds a proposed test file.
const maxTest = 256 << 10

var submitTool = llm.Tool{
	Name:        "submit_test",
	Description: "Submit one test: the complete content of the test file.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","description":"The whole test file."}},"required":["content"],"additionalProperties":false}`),
}

// Tester is a live tester: a conversation and read-only access to the base revision.
type Tester struct {
	*live
	ws  *workspace.Workspace
	ref string
}

type testerState struct {
	Messages []llm.Message `json:"messages"`
}

// NewTester returns a tester reading the base revision checked out in baseDir.
func NewTester(opts Options, baseDir string, contract ci.Contract) (*Tester, error) {
	l, err := newLive(opts, testerPrompt(opts.Settings, contract))
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Open(baseDir, workspace.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("tester %s: %w", opts.Settings.Name, err)
	}
	return &Tester{live: l, ws: ws, ref: "refs/dixit/" + opts.Run + "/testers/" + opts.Settings.Name}, nil
}

// Propose runs one turn and returns the test the tester submitted. A turn that ends
// without a usable test proposes nothing.
func (t *Tester) Propose(ctx context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	t.ask(turn.Message)
	var test []byte
	tools := append(t.ws.Tools(), submitTool)
	err := t.converse(ctx, turn.Draw, tools, func(ctx context.Context, call llm.ToolCall) (string, bool, error) {
		if call.Name != submitTool.Name {
			result, err := t.ws.Call(ctx, call)
			return result, false, err
		}
		content, problem := submission(call.Arguments)
		if problem != "" {
			return "error: " + problem, false, nil
		}
		test = content
		return "Received.", true, nil
	})
	if err != nil {
		return orchestrate.Proposal{}, err
	}
	if test == nil {
		test = lastCodeBlock(t.messages)
	}
	if test == nil {
		return orchestrate.Proposal{None: true}, nil
	}
	tree, err := t.opts.Workshop.WriteFiles([]gitstate.File{{Path: "test", Content: test}})
	if err != nil {
		return orchestrate.Proposal{}, err
	}
	if _, err := t.opts.Workshop.Commit(t.ref, tree, fmt.Sprintf("%s: proposal %d", t.name, turn.Draw)); err != nil {
		return orchestrate.Proposal{}, err
	}
	return orchestrate.Proposal{Content: test}, nil
}

// submission checks submit_test's arguments and returns the test or what is wrong.
func submission(arguments string) ([]byte, string) {
	var args struct {
		Content string `json:"content"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(arguments)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Sprintf("the arguments must be a JSON object with one string field, content (%v)", err)
	}
	switch {
	case len(bytes.TrimSpace([]byte(args.Content))) == 0:
		return nil, "the test file is empty"
	case len(args.Content) > maxTest:
		return nil, fmt.Sprintf("the test file is larger than %d bytes", maxTest)
	}
	return []byte(args.Content), ""
}

var fenced = regexp.MustCompile("(?s)```[a-zA-Z0-9_+-]*\\n(.*?)```")

// lastCodeBlock accepts a test the model wrote as a fenced block in its final answer
// instead of calling submit_test, as some models do.
func lastCodeBlock(messages []llm.Message) []byte {
	last := messages[len(messages)-1]
	if last.Role != llm.RoleAssistant {
		return nil
	}
	blocks := fenced.FindAllStringSubmatch(last.Content, -1)
	if len(blocks) == 0 || len(blocks[len(blocks)-1][1]) > maxTest {
		return nil
	}
	return []byte(blocks[len(blocks)-1][1])
}

func (t *Tester) Save(context.Context) (orchestrate.Checkpoint, error) {
	return t.cps.Save(testerState{Messages: t.messages})
}

func (t *Tester) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	var s testerState
	if err := t.cps.Load(cp, &s); err != nil {
		return err
	}
	t.messages = s.Messages
	return nil
}
