package scripted

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/dixit-bot/dixit/internal/agent/checkpoint"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// maxTestSize bounds a proposed test file.
const maxTestSize = 1 << 20

var (
	_ orchestrate.Coder  = (*Coder)(nil)
	_ orchestrate.Tester = (*Tester)(nil)
)

// Message is one line of a scripted agent's history, kept so that checkpoints and
// rollbacks act on something real and can be inspected in the workshop.
type Message struct {
	Role string `json:"role"` // user | agent
	Text string `json:"text"`
}

// state is what a checkpoint holds.
type state struct {
	History   []Message `json:"history"`
	Workspace string    `json:"workspace,omitempty"`
}

// base is the history and checkpoint machinery both roles share.
type base struct {
	name    string
	w       *gitstate.Workshop
	cps     checkpoint.Store
	current state
}

func (b *base) Name() string { return b.name }

func (b *base) Tell(_ context.Context, message string) error {
	b.current.History = append(b.current.History, Message{Role: "user", Text: message})
	return nil
}

// Save commits the agent's state on its checkpoint ref and returns the commit.
func (b *base) Save(context.Context) (orchestrate.Checkpoint, error) { return b.cps.Save(b.current) }

func (b *base) load(cp orchestrate.Checkpoint) (state, error) {
	var s state
	err := b.cps.Load(cp, &s)
	return s, err
}

// Coder answers its k-th solve with its version k (the last one repeats).
type Coder struct {
	base
	script Script
	ref    string
}

// NewCoder returns a scripted coder whose workspace lives on refs/dixit/<run>/coders/<name>.
func NewCoder(w *gitstate.Workshop, run string, s Script) *Coder {
	return &Coder{
		base:   base{name: s.Name, w: w, cps: checkpoint.New(w, run, s.Name)},
		script: s,
		ref:    "refs/dixit/" + run + "/coders/" + s.Name,
	}
}

func (c *Coder) Solve(_ context.Context, turn orchestrate.Turn) (string, error) {
	k := min(turn.Draw, len(c.script.Versions))
	tree, err := c.tree(c.script.Versions[k-1])
	if err != nil {
		return "", fmt.Errorf("coder %s version %d: %w", c.name, k, err)
	}
	commit, err := c.w.CommitAfter(c.ref, c.current.Workspace, tree, fmt.Sprintf("%s: solve %d (scripted version %d)", c.name, turn.Draw, k))
	if err != nil {
		return "", err
	}
	c.current.History = append(c.current.History,
		Message{Role: "user", Text: turn.Message},
		Message{Role: "agent", Text: fmt.Sprintf("[scripted version %d]", k)})
	c.current.Workspace = commit
	return commit, nil
}

func (c *Coder) Workspace(context.Context) (string, error) { return c.current.Workspace, nil }

// tree writes a version into the workshop: a directory as it is, a diff applied to base/.
func (c *Coder) tree(version string) (string, error) {
	if !strings.HasSuffix(version, ".diff") {
		return c.w.ImportDir(version)
	}
	files, err := patchedFiles(c.script.Base, version)
	if err != nil {
		return "", err
	}
	return c.w.WriteFiles(files)
}

// Restore brings back the history and moves the workspace ref back to the saved commit.
func (c *Coder) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	s, err := c.load(cp)
	if err != nil {
		return err
	}
	head, _, err := c.w.Ref(c.ref)
	if err != nil {
		return err
	}
	if s.Workspace != "" && head != s.Workspace {
		if err := c.w.SetRef(c.ref, head, s.Workspace); err != nil {
			return fmt.Errorf("restore workspace of %s: %w", c.name, err)
		}
	}
	c.current = s
	return nil
}

// Tester answers its k-th request with its proposal k, and with nothing after the last.
type Tester struct {
	base
	script Script
	ref    string
}

// NewTester returns a scripted tester whose proposals go to refs/dixit/<run>/testers/<name>.
func NewTester(w *gitstate.Workshop, run string, s Script) *Tester {
	return &Tester{
		base:   base{name: s.Name, w: w, cps: checkpoint.New(w, run, s.Name)},
		script: s,
		ref:    "refs/dixit/" + run + "/testers/" + s.Name,
	}
}

func (t *Tester) Propose(_ context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	t.current.History = append(t.current.History, Message{Role: "user", Text: turn.Message})
	if turn.Draw > len(t.script.Versions) {
		t.current.History = append(t.current.History, Message{Role: "agent", Text: "[no more proposals]"})
		return orchestrate.Proposal{None: true}, nil
	}
	if k := turn.Draw - 1; k < len(t.script.Diffs) && t.script.Diffs[k] != nil {
		d := t.script.Diffs[k]
		return t.propose(turn, orchestrate.Proposal{Content: d.Content, Path: d.Path, Select: d.Select})
	}
	file := t.script.Versions[turn.Draw-1]
	info, err := os.Stat(file)
	if err != nil {
		return orchestrate.Proposal{}, fmt.Errorf("tester %s proposal %d: %w", t.name, turn.Draw, err)
	}
	if info.Size() > maxTestSize {
		return orchestrate.Proposal{}, fmt.Errorf("tester %s proposal %d: %s is larger than %d bytes", t.name, turn.Draw, file, maxTestSize)
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return orchestrate.Proposal{}, fmt.Errorf("tester %s proposal %d: %w", t.name, turn.Draw, err)
	}
	var place string
	if turn.Draw-1 < len(t.script.Places) {
		place = t.script.Places[turn.Draw-1]
	}
	return t.propose(turn, orchestrate.Proposal{Content: content, Path: place})
}

// propose records a proposal on the tester's ref and in its history.
func (t *Tester) propose(turn orchestrate.Turn, p orchestrate.Proposal) (orchestrate.Proposal, error) {
	tree, err := t.w.WriteFiles([]gitstate.File{{Path: "test", Content: p.Content}})
	if err != nil {
		return orchestrate.Proposal{}, err
	}
	if _, err := t.w.Commit(t.ref, tree, fmt.Sprintf("%s: proposal %d", t.name, turn.Draw)); err != nil {
		return orchestrate.Proposal{}, err
	}
	t.current.History = append(t.current.History, Message{Role: "agent", Text: fmt.Sprintf("[scripted proposal %d]", turn.Draw)})
	return p, nil
}

func (t *Tester) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	s, err := t.load(cp)
	if err != nil {
		return err
	}
	t.current = s
	return nil
}

var _ orchestrate.Advisor = (*Advisor)(nil)

// maxAnswerSize bounds a scripted answer.
const maxAnswerSize = 256 << 10

// Advisor answers its k-th request with answer k; the last one repeats.
type Advisor struct {
	base
	script Script
}

// NewAdvisor returns a scripted advisor (a critic, a navigator).
func NewAdvisor(w *gitstate.Workshop, run string, s Script) *Advisor {
	return &Advisor{base: base{name: s.Name, w: w, cps: checkpoint.New(w, run, s.Name)}, script: s}
}

func (a *Advisor) Answer(_ context.Context, turn orchestrate.Turn) (string, error) {
	k := min(turn.Draw, len(a.script.Versions))
	file := a.script.Versions[k-1]
	info, err := os.Stat(file)
	if err != nil {
		return "", fmt.Errorf("advisor %s answer %d: %w", a.name, turn.Draw, err)
	}
	if info.Size() > maxAnswerSize {
		return "", fmt.Errorf("advisor %s answer %d: %s is larger than %d bytes", a.name, turn.Draw, file, maxAnswerSize)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("advisor %s answer %d: %w", a.name, turn.Draw, err)
	}
	a.current.History = append(a.current.History, Message{Role: "user", Text: turn.Message}, Message{Role: "agent", Text: string(text)})
	return string(text), nil
}

func (a *Advisor) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	s, err := a.load(cp)
	if err != nil {
		return err
	}
	a.current = s
	return nil
}
