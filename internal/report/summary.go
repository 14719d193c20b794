package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// Summary is summary.json: the machine-readable account of a run.
type Summary struct {
	Run        string              `json:"run"`
	Population string              `json:"population,omitempty"`
	Agents     string              `json:"agents"` // scripted | llm
	Protocol   string              `json:"protocol"`
	Final      string              `json:"final,omitempty"` // the coder a protocol other than dixit accepted
	Outcome    orchestrate.Outcome `json:"outcome"`
	Reason     string              `json:"reason"`
	// Preflight is the check of the base revision before any agent worked.
	Preflight *Preflight `json:"preflight,omitempty"`
	// Existing is the repository's own tests on the base: what coders must keep passing.
	Existing    *Existing                 `json:"existing_tests,omitempty"`
	Evidence    Evidence                  `json:"evidence"`
	Rounds      int                       `json:"rounds"`
	Vetted      []VettedTest              `json:"vetted"`
	Coders      []Coder                   `json:"coders"`
	Testers     []orchestrate.TesterState `json:"testers"`
	Events      []orchestrate.Event       `json:"events"`
	Spend       Spend                     `json:"spend"`
	Judge       Judge                     `json:"judge"`
	Journal     Journal                   `json:"journal"`
	WallSeconds float64                   `json:"wall_seconds"`
	// Comparison is set once the implementations have been compared (diff stats,
	// differential testing, the pick).
	Comparison *Comparison `json:"comparison,omitempty"`
	// Vet is the verdict on a patch under review (bot vet, a labelled pull request).
	Vet *vet.Verdict `json:"vet,omitempty"`
	// Decisions are the humans' answers to the run's escalations (docs/decisions.md);
	// Accepted the coder a human accepted; Standing what a next decision is checked
	// against.
	Decisions []orchestrate.AppliedDecision `json:"decisions,omitempty"`
	Accepted  string                        `json:"accepted,omitempty"`
	Standing  orchestrate.Standing          `json:"standing"`
	// SpecComments are the HTML comments cut from the spec before any agent read it:
	// GitHub does not show them to the people who read and label the issue.
	SpecComments []string `json:"spec_comments,omitempty"`
	// TestPath is where the test contract puts a test ("{id}_test.go"): its extension
	// gives the report's code blocks their language.
	TestPath string `json:"test_path,omitempty"`
	// StateDir is the local state directory the run lives in, so that the commands the
	// report prints name it when it is not the default. Not saved: a path on this machine,
	// which a moved state directory would make wrong.
	StateDir string `json:"-"`
}

// VettedTest is one test of the vetted suite.
type VettedTest struct {
	ID string `json:"id"`
	// Path is where its tester put it ("" for the contract's default place).
	Path     string   `json:"path,omitempty"`
	Number   int      `json:"number"`
	Tester   string   `json:"tester"`
	Proposal int      `json:"proposal"`
	Round    int      `json:"round"`
	PassedBy []string `json:"passed_by"`
	FailedBy []string `json:"failed_by"`
	// OnBase is how the test did on the base revision, once checked: failing there, it
	// tests the change; passing, it guards behaviour the repository already had.
	OnBase *BaseCheck `json:"on_base,omitempty"`
}

// BaseCheck is a vetted test's verdict on the base revision.
type BaseCheck struct {
	Outcome ci.Outcome `json:"outcome"`
	Output  string     `json:"output,omitempty"` // the judge's tail of a run that did not pass
}

// What the base check says of a test, in the report's words.
const (
	TestsTheChange = "tests the change"
	GuardsExisting = "guards existing behaviour"
	BaseUnknown    = "not known on the base"
)

// Kind is what the test is for, judged by its verdict on the base: a test the base
// passes guards existing behaviour; one it fails (or cannot build) tests the change; an
// environment failure says nothing.
func (b *BaseCheck) Kind() string {
	switch {
	case b == nil || b.Outcome == ci.PrepareFailed:
		return BaseUnknown
	case b.Outcome == ci.Pass:
		return GuardsExisting
	default:
		return TestsTheChange
	}
}

// Coder is a coder's final state; Ref is the hidden ref holding its workspace.
type Coder struct {
	Name   string `json:"name"`
	Solves int    `json:"solves"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Breaks are the repository's own tests its tree broke when they last ran on it.
	Breaks []ci.Regression `json:"breaks,omitempty"`
}

// Spend is what the run cost: tokens per agent and per round, and an estimate in dollars
// from agents.price.
type Spend struct {
	PromptTokens     int               `json:"prompt_tokens"`
	CompletionTokens int               `json:"completion_tokens"`
	CostUSD          float64           `json:"cost_usd"`
	ByAgent          map[string]Tokens `json:"by_agent"`
	ByRound          []Tokens          `json:"by_round"` // index 0 is the coders' first solves
}

// Tokens counts tokens.
type Tokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Judge is the judge's work in this process (a resumed run counts only what it ran).
type Judge struct {
	ci.Stats
	Sandbox string `json:"sandbox"`
	// ActionsMinutes is what the run's GitHub Actions jobs are billed, each job rounded up
	// to a minute (judge: actions; zero otherwise).
	ActionsMinutes int `json:"actions_minutes,omitempty"`
}

// Journal is how the run's journal was used.
type Journal struct {
	Entries  int     `json:"entries"`
	Replayed int     `json:"replayed"`
	Live     int     `json:"live"`
	Seconds  float64 `json:"seconds"` // time spent writing it
}

// NewSummary assembles the summary of a finished run.
func NewSummary(run string, res *orchestrate.Result) Summary {
	s := Summary{
		Run: run, Protocol: res.Protocol, Final: res.Final, Outcome: res.Outcome, Reason: res.Reason, Rounds: res.Rounds, Evidence: evidence(res),
		Testers: res.Testers, Events: res.Events, Vetted: []VettedTest{},
		Journal:   Journal{Entries: res.Replayed + res.Live, Replayed: res.Replayed, Live: res.Live},
		Decisions: res.Decisions, Accepted: res.Accepted, Standing: res.Standing,
	}
	s.Spend = spend(res)
	for _, v := range res.Vetted {
		s.Vetted = append(s.Vetted, VettedTest{ID: v.ID, Path: v.Path, Number: v.Number, Tester: v.Tester, Proposal: v.Proposal,
			Round: v.Round, PassedBy: v.PassedBy, FailedBy: v.FailedBy})
	}
	for _, c := range res.Coders {
		s.Coders = append(s.Coders, Coder{Name: c.Name, Solves: c.Solves, Commit: c.Commit, Breaks: c.Breaks,
			Ref: fmt.Sprintf("refs/dixit/%s/coders/%s", run, c.Name)})
	}
	return s
}

// Paths are the files Write produced.
type Paths struct {
	Summary  string // summary.json
	Markdown string // report.md
	HTML     string // report.html: the same report as a self-contained page
}

// Write saves summary.json, report.md and report.html in dir.
func Write(dir string, s Summary, res *orchestrate.Result) (Paths, error) {
	p := Paths{Summary: filepath.Join(dir, "summary.json"), Markdown: filepath.Join(dir, "report.md"), HTML: filepath.Join(dir, "report.html")}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Paths{}, fmt.Errorf("encode summary: %w", err)
	}
	page, err := HTML(s, res)
	if err != nil {
		return Paths{}, err
	}
	for path, content := range map[string][]byte{p.Summary: append(data, '\n'), p.Markdown: []byte(Markdown(s, res)), p.HTML: []byte(page)} {
		if err := writeAtomic(path, content); err != nil {
			return Paths{}, err
		}
	}
	return p, nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func spend(res *orchestrate.Result) Spend {
	sp := Spend{PromptTokens: res.Spend.PromptTokens, CompletionTokens: res.Spend.CompletionTokens,
		CostUSD: res.CostUSD, ByAgent: map[string]Tokens{}, ByRound: make([]Tokens, res.Rounds+1)}
	for name, a := range res.SpentBy {
		if a.Tokens() > 0 {
			sp.ByAgent[name] = Tokens{Prompt: a.PromptTokens, Completion: a.CompletionTokens}
		}
	}
	for _, ev := range res.Events {
		if ev.Spend == nil || ev.Round >= len(sp.ByRound) {
			continue
		}
		sp.ByRound[ev.Round].Prompt += ev.Spend.PromptTokens
		sp.ByRound[ev.Round].Completion += ev.Spend.CompletionTokens
	}
	return sp
}
