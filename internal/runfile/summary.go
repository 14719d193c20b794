// Package runfile is the run's schema on disk: summary.json (what a run found, which the
// report is written from and the session reads back) and the local commands that name a
// run's state directory. session, report and the App read it from here.
package runfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// SummaryFile is the name of the summary in a run's directory.
const SummaryFile = "summary.json"

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
	Existing *Existing                 `json:"existing_tests,omitempty"`
	Evidence Evidence                  `json:"evidence"`
	Rounds   int                       `json:"rounds"`
	Vetted   []VettedTest              `json:"vetted"`
	Coders   []Coder                   `json:"coders"`
	Testers  []orchestrate.TesterState `json:"testers"`
	Events   []orchestrate.Event       `json:"events"`
	Spend    Spend                     `json:"spend"`
	Judge    Judge                     `json:"judge"`
	Journal  Journal                   `json:"journal"`
	// WallSeconds, Judge and Journal.Seconds add up the Invocations that worked on the
	// run (a vet report adds its own vetting to the run's); Spend is the run's whole from
	// its journal.
	WallSeconds float64 `json:"wall_seconds"`
	Invocations int     `json:"invocations,omitempty"`
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
	// Instructions are the base's agent instruction files (AGENTS.md …) the live agents
	// were given with the spec, and InstructionsSkipped those left out, with why.
	Instructions        []string `json:"agent_instructions,omitempty"`
	InstructionsSkipped []string `json:"agent_instructions_skipped,omitempty"`
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
	Path string `json:"path,omitempty"`
	// Select are the tests it runs when its tester proposed it as a diff of Path.
	Select   []string `json:"select,omitempty"`
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
	// Tampered is the first evidence that one of its jobs changed what the test runner
	// reports: it is out of the consensus and the pick.
	Tampered *orchestrate.Tamper `json:"tampered,omitempty"`
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

// Judge is the judge's work: in one invocation, or in the whole run (Summary.Account).
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
	Seconds  float64 `json:"seconds"` // time spent writing it, in every invocation
}

// Encode is the summary as summary.json holds it.
func (s Summary) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	return append(data, '\n'), nil
}

// ReadSummary reads the summary.json in dir. When there is none, the error wraps
// os.ErrNotExist; when it does not decode, it is the decoder's, for the caller to place.
func ReadSummary(dir string) (Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return Summary{}, err
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return Summary{}, err
	}
	return s, nil
}
