package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

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
	Description: "Submit one test: the complete content of the test file, and where it goes.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","description":"The whole test file."},"path":{"type":"string","description":"Where the file goes in the repository, relative to its root, when the instructions allow naming a place; leave it out for the default place."}},"required":["content"],"additionalProperties":false}`),
}

// submitDiffTool is submit_test where the judge can run single test functions (pytest):
// a test may also be a diff of one of the repository's test files, as real testers
// write them, and then only the functions it adds or changes run.
var submitDiffTool = llm.Tool{
	Name:        submitTool.Name,
	Description: "Submit one test: either the complete content of a new test file (content, and path), or a diff that adds or changes test functions in one of the repository's existing test files (diff).",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","description":"The whole test file, for a new file."},"path":{"type":"string","description":"Where the new file goes in the repository, relative to its root, when the instructions allow naming a place; leave it out for the default place."},"diff":{"type":"string","description":"Instead of content: a unified diff (as git diff writes it) of one existing test file of the repository, adding or changing test functions. Only the test functions it adds or changes run."}},"additionalProperties":false}`),
}

// submitToolFor is the submit tool a contract's tester gets.
func submitToolFor(c ci.Contract) llm.Tool {
	if c.Selects(c.Path) {
		return submitDiffTool
	}
	return submitTool
}

// Tester is a live tester: a conversation and read-only access to the base revision.
type Tester struct {
	*live
	ws        *workspace.Workspace
	baseDir   string // the base revision, which a diff is applied to
	ref       string
	tools     []llm.Tool
	langs     []string // fence labels of the test file's language
	contract  ci.Contract
	jsonTests bool // tests are JSON files (data for a runner)
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
	files, err := listing(ws)
	if err != nil {
		return nil, fmt.Errorf("tester %s: %w", opts.Settings.Name, err)
	}
	l.textSystem = testerTextPrompt(opts.Settings, contract, files)
	return &Tester{live: l, ws: ws, baseDir: baseDir, ref: "refs/dixit/" + opts.Run + "/testers/" + opts.Settings.Name,
		tools: append(ws.Tools(), submitToolFor(contract)), langs: fenceLabels(contract.Path), contract: contract,
		jsonTests: strings.EqualFold(path.Ext(contract.Path), ".json")}, nil
}

// Propose runs one turn and returns the test the tester submitted. A turn that ends
// without a usable test proposes nothing.
func (t *Tester) Propose(ctx context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	t.ask(turn.Message)
	var test []byte
	var place string
	var sel []string
	refused, err := t.converse(ctx, turn.Draw, role{
		tools: t.tools,
		handle: func(ctx context.Context, call llm.ToolCall) (string, bool, error) {
			if call.Name != submitTool.Name {
				result, err := t.ws.Call(ctx, call)
				return result, false, err
			}
			s, problem := submission(call.Arguments, t.contract, t.baseDir)
			if problem != "" {
				return "error: " + problem, false, nil
			}
			test, place, sel = s.content, s.at, s.sel
			return "Received.", true, nil
		},
		produced:  func(last llm.Message) (bool, error) { return t.codeBlock(last) != nil, nil },
		nudge:     nudgeTester,
		text:      t.readText,
		textNudge: nudgeTesterText,
	})
	if err != nil {
		return orchestrate.Proposal{}, err
	}
	if test == nil && !refused {
		test, place = t.pickBlock(t.messages[len(t.messages)-1])
		if place != "" && ci.CheckTestPath(t.contract, place) != nil {
			test = nil // told and not fixed: no test rather than one in the wrong package
		}
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
	return orchestrate.Proposal{Content: test, Path: place, Select: sel}, nil
}

// readText answers a reply in the text protocol that asks for files with READ lines;
// a reply holding a test block ends the turn with it (Propose takes the block).
func (t *Tester) readText(ctx context.Context, msg llm.Message) (textReply, error) {
	reads := readRequests(msg.Content)
	if body, place := t.pickBlock(msg); body != nil {
		if place == "" {
			return textReply{}, nil
		}
		if err := ci.CheckTestPath(t.contract, place); err != nil {
			return textReply{answer: "error: " + err.Error() + ". Write the test again, with path= naming an allowed place, or without it for the default place.", refused: true}, nil
		}
		return textReply{}, nil
	}
	if len(reads) == 0 {
		return textReply{}, nil
	}
	files, err := readFiles(ctx, t.ws, reads)
	if err != nil {
		return textReply{}, fmt.Errorf("%s: %w", t.name, err)
	}
	return textReply{answer: files + "Write the test as one fenced block when you are ready."}, nil
}

// submitted is a test submit_test received: a file's content and place, and for a diff
// the tests it selects.
type submitted struct {
	content []byte
	at      string
	sel     []string
}

// submission checks submit_test's arguments and returns the test or what is wrong. A
// diff is applied to the base revision in baseDir here, so that one that does not
// apply, or adds or changes no test, is refused while the tester can still fix it.
func submission(arguments string, contract ci.Contract, baseDir string) (submitted, string) {
	var args struct {
		Content *string `json:"content"`
		Path    string  `json:"path"`
		Diff    *string `json:"diff"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(arguments)))
	dec.DisallowUnknownFields()
	fields := "the string field content and, optionally, path"
	if contract.Selects(contract.Path) {
		fields = "either the string field content (and, optionally, path) or the string field diff"
	}
	if err := dec.Decode(&args); err != nil {
		return submitted{}, fmt.Sprintf("the arguments must be a JSON object with %s (%v)", fields, err)
	}
	switch {
	case args.Diff != nil && args.Content != nil:
		return submitted{}, "give either content (a whole new test file) or diff (a change to an existing one), not both"
	case args.Diff != nil && args.Path != "":
		return submitted{}, "a diff names its file itself: leave path out"
	case args.Diff != nil:
		return diffSubmission(*args.Diff, contract, baseDir)
	case args.Content == nil || len(bytes.TrimSpace([]byte(*args.Content))) == 0:
		return submitted{}, "the test file is empty"
	case len(*args.Content) > maxTest:
		return submitted{}, fmt.Sprintf("the test file is larger than %d bytes", maxTest)
	}
	if args.Path != "" {
		if err := ci.CheckTestPath(contract, args.Path); err != nil {
			return submitted{}, err.Error()
		}
	}
	return submitted{content: []byte(*args.Content), at: args.Path}, ""
}

// diffSubmission applies a submitted diff to the base revision.
func diffSubmission(diff string, contract ci.Contract, baseDir string) (submitted, string) {
	if !contract.Selects(contract.Path) {
		return submitted{}, "this repository's tests are whole files: give content, not diff"
	}
	root, err := os.OpenRoot(baseDir)
	if err != nil {
		return submitted{}, fmt.Sprintf("the repository cannot be read to apply the diff (%v)", err)
	}
	defer root.Close()
	d, err := ci.ApplyTestDiff(contract, []byte(diff), root.FS())
	if err != nil {
		return submitted{}, err.Error()
	}
	return submitted{content: d.Content, at: d.Path, sel: d.Select}, ""
}

// fenced is a code block: its label, the path=… a text tester may name (as text coders
// do), and its body.
var fenced = regexp.MustCompile("(?s)```([A-Za-z0-9_+.-]*)(?:[ \t]+path=(\\S+))?[ \t]*\r?\n(.*?)```")

// codeBlock accepts a test the model wrote as a fenced block in its final answer instead
// of calling submit_test, as some models do: the last block labelled with the test
// file's language, or unlabelled. A block in another language is never taken for a
// test, nor JSON unless tests are JSON files, nor ever a block that reads as a call of
// one of the tester's tools: a ```json tool call the client could not read as one stays
// what it is.
func (t *Tester) codeBlock(last llm.Message) []byte {
	body, _ := t.pickBlock(last)
	return body
}

// pickBlock is codeBlock with the place the model named for it: "```go path=<path>"
// ("" when it named none).
func (t *Tester) pickBlock(last llm.Message) (body []byte, place string) {
	if last.Role != llm.RoleAssistant {
		return nil, ""
	}
	blocks := fenced.FindAllStringSubmatchIndex(last.Content, -1)
	for i := len(blocks) - 1; i >= 0; i-- {
		m := blocks[i]
		label, body := strings.ToLower(last.Content[m[2]:m[3]]), last.Content[m[6]:m[7]]
		switch {
		case label != "" && !slices.Contains(t.langs, label),
			len(body) > maxTest || strings.TrimSpace(body) == "",
			!t.jsonTests && looksLikeJSON(body),
			namesATool(body, t.tools):
			continue
		}
		place := ""
		if m[4] >= 0 {
			place = last.Content[m[4]:m[5]]
		}
		return []byte(body), place
	}
	return nil, ""
}

func looksLikeJSON(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}

// namesATool reports a JSON object whose "name" (or "tool") is one of tools: a call.
func namesATool(body string, tools []llm.Tool) bool {
	var obj map[string]any
	if json.Unmarshal([]byte(body), &obj) != nil {
		return false
	}
	for _, k := range []string{"name", "tool"} {
		if name, ok := obj[k].(string); ok && slices.ContainsFunc(tools, func(t llm.Tool) bool { return t.Name == name }) {
			return true
		}
	}
	return false
}

// fenceLabels are the labels a fenced block of the test file's language may carry,
// from the extension of the contract's test path.
func fenceLabels(testPath string) []string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(testPath), "."))
	switch ext {
	case "go":
		return []string{"go", "golang"}
	case "py":
		return []string{"python", "py", "python3"}
	case "js", "mjs", "cjs", "jsx":
		return []string{"javascript", "js", "jsx", "node", "mjs", "cjs"}
	case "ts", "mts", "cts", "tsx":
		return []string{"typescript", "ts", "tsx", "mts", "cts"}
	case "sh", "bash":
		return []string{"sh", "bash", "shell"}
	case "rb":
		return []string{"ruby", "rb"}
	case "rs":
		return []string{"rust", "rs"}
	case "json":
		return []string{"json", "jsonc", "json5"}
	case "":
		return nil // unlabelled blocks only
	}
	return []string{ext}
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
