package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var _ orchestrate.Advisor = (*Advisor)(nil)

// Advisor is a live agent that answers in words and uses no tools: a critic reviewing
// code it is shown, a navigator analysing a spec.
type Advisor struct {
	*live
}

type advisorState struct {
	Messages []llm.Message `json:"messages"`
}

// NewCritic returns a critic of the given kind (design, correctness, syntax or general;
// a digit after the kind names a copy).
func NewCritic(opts Options, kind string) (*Advisor, error) {
	return newAdvisor(opts, criticPrompt(strings.TrimRight(kind, "0123456789")))
}

func newAdvisor(opts Options, system string) (*Advisor, error) {
	l, err := newLive(opts, system)
	if err != nil {
		return nil, err
	}
	return &Advisor{live: l}, nil
}

// Answer runs one turn and returns the model's final text; nothing when it refused.
func (a *Advisor) Answer(ctx context.Context, turn orchestrate.Turn) (string, error) {
	a.ask(turn.Message)
	refused, err := a.converse(ctx, turn.Draw, role{handle: func(context.Context, llm.ToolCall) (string, bool, error) {
		return "error: no tools are available; answer in text", false, nil
	}})
	if err != nil {
		return "", err
	}
	if refused {
		return "", nil // no answer: a refusal is not a review or an analysis
	}
	last := a.messages[len(a.messages)-1]
	if last.Role != llm.RoleAssistant {
		return "", fmt.Errorf("%s: the turn ended without an answer", a.name)
	}
	return last.Content, nil
}

func (a *Advisor) Save(context.Context) (orchestrate.Checkpoint, error) {
	return a.cps.Save(advisorState{Messages: a.messages})
}

func (a *Advisor) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	var s advisorState
	if err := a.cps.Load(cp, &s); err != nil {
		return err
	}
	a.messages = s.Messages
	return nil
}

// criticPrompt instructs a critic of one kind (seed 003's design, correctness and
// syntax reviews, or one general review); the spec follows in a message of its own.
func criticPrompt(kind string) string {
	focus := map[string]string{
		"design": "Review the design: is the structure sound, are responsibilities clear, does the code do what the " +
			"specification asks in a way that will be easy to maintain? Do not comment on style alone.",
		"correctness": "Review correctness: does the code compute what the specification asks for every input it allows, " +
			"including edge cases? Do its tests check the right expectations?",
		"syntax": "Review the code as a compiler and a careful reader would: will it build, are there syntax or type errors, " +
			"undefined names, wrong imports, misuse of the language or its standard library?",
		"general": "Review the code as a whole: design, correctness against the specification, and whether it builds.",
	}[kind]
	if focus == "" {
		focus = "Review the code as a whole: design, correctness against the specification, and whether it builds."
	}
	return fmt.Sprintf(`You review code written to implement the specification in the next message. You are shown the files in each request.
%s
Answer with a JSON object only: {"lgtm": true} when the code is right, or {"lgtm": false, "corrections": [...]}
with one short, concrete sentence per correction. Ask only for changes that matter.
`, focus)
}

// NewNavigator returns tdg's navigator (seed 002): it analyses the spec and, later, the
// failures of the programmers' candidates; it writes no code.
func NewNavigator(opts Options) (*Advisor, error) {
	return newAdvisor(opts, `You are the navigator of a small team implementing the specification in the next message: you
think about the problem at a higher level than the code. When asked, analyse the specification
(inputs, outputs, edge cases, pitfalls) or the failures of an implementation. You write no code;
answer in concise, concrete prose.
`)
}

// NewPlanner returns blind's test planner (seed 004): it reasons about tests from the
// description alone and answers with a JSON plan; it sees no code and no test.
func NewPlanner(opts Options) (*Advisor, error) {
	return newAdvisor(opts, `You plan tests for the specification in the next message from its description alone: you will
not see any implementation or any existing test. Reason about what a correct implementation must
do: explicit requirements, implicit edge cases, boundaries and error cases. Answer in the JSON
format you are asked for.
`)
}
