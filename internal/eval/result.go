package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/dixit-bot/dixit/internal/config"
)

// Schema is the version of eval.json; it changes when a field changes meaning.
const Schema = 2

// Report is what `bot eval` measured: one row per (task, protocol) that ran, and the
// pairs that were skipped with the reason.
type Report struct {
	Schema      int       `json:"schema"`
	Bench       string    `json:"bench"`
	Agents      string    `json:"agents"` // scripted (hand-written populations) or llm (live agents)
	Protocols   []string  `json:"protocols"`
	Runs        []Row     `json:"runs"`
	Skipped     []Skipped `json:"skipped"`
	Totals      []Total   `json:"totals"` // per protocol, over the tasks it ran
	WallSeconds float64   `json:"wall_seconds"`
}

// Row is one protocol run on one task and how it measured.
type Row struct {
	Task     string `json:"task"`
	Protocol string `json:"protocol"`
	Run      string `json:"run"`
	Outcome  string `json:"outcome"`
	Reason   string `json:"reason"`
	// Final is the implementation measured: dixit's pick, another protocol's accepted
	// coder, or its first coder when none was accepted.
	Final string `json:"final"`
	// Hidden is the final implementation on the hidden tests; Solved that it passes all.
	Hidden Score `json:"hidden"`
	Solved bool  `json:"solved"`
	// Precision is the run's tests on the reference solution; TestsKind says which tests
	// those are: vetted (dixit), designed (tdg) or own (the final coder's test files).
	Precision Score  `json:"precision"`
	TestsKind string `json:"tests_kind"`
	// LLMCalls counts the agents' journalled answers (solves, proposals, advice): model
	// calls with live agents, scripted answers otherwise.
	LLMCalls         int     `json:"llm_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// JudgeExecutions and JudgeRuns are the protocol's own judge work (builds and test
	// runs), not the measurement's; CacheHits its verdicts found in the cache.
	JudgeExecutions int     `json:"judge_executions"`
	JudgeRuns       int     `json:"judge_runs"`
	CacheHits       int     `json:"cache_hits"`
	WallSeconds     float64 `json:"wall_seconds"`
	// Resumed is true when every effect came from an earlier run's journal.
	Resumed bool   `json:"resumed"`
	Report  string `json:"report"` // the run's report.md
	// Mutation is the final implementation's mutants killed by the run's tests, by all
	// proposed tests and by the hidden tests; nil when not measured (Options.Mutants < 0).
	Mutation *Mutation `json:"mutation,omitempty"`
	// Models are the models the run's live agents used (AgentModels); none when scripted.
	Models []string `json:"models,omitempty"`
}

// AgentModels lists the models live agents configured by a would use: the default and
// every agent's own, each once, in order.
func AgentModels(a config.Agents) []string {
	var out []string
	add := func(m string) {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	add(a.Model)
	for _, agents := range [][]config.AgentSettings{a.Coders, a.Testers} {
		for _, ag := range agents {
			add(ag.Model)
		}
	}
	return out
}

// models lists the models of every row, each once, in the order they first ran.
func (r *Report) models() []string {
	var out []string
	for _, row := range r.Runs {
		for _, m := range row.Models {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Score is a count of tests passed out of a total, with the ids that failed.
type Score struct {
	Passed int      `json:"passed"`
	Total  int      `json:"total"`
	Failed []string `json:"failed,omitempty"`
}

// Rate is Passed/Total; ok is false when there is nothing to measure.
func (s Score) Rate() (rate float64, ok bool) {
	if s.Total == 0 {
		return 0, false
	}
	return float64(s.Passed) / float64(s.Total), true
}

func (s *Score) add(o Score) {
	s.Passed += o.Passed
	s.Total += o.Total
}

// Skipped is a (task, protocol) pair that did not run.
type Skipped struct {
	Task     string `json:"task"`
	Protocol string `json:"protocol"`
	Why      string `json:"why"`
}

// Total sums a protocol's rows. Hidden and Precision pool the tests of every task.
type Total struct {
	Protocol        string  `json:"protocol"`
	Tasks           int     `json:"tasks"`
	Solved          int     `json:"solved"`
	Hidden          Score   `json:"hidden"`
	Precision       Score   `json:"precision"`
	LLMCalls        int     `json:"llm_calls"`
	Tokens          int     `json:"tokens"`
	CostUSD         float64 `json:"cost_usd"`
	JudgeExecutions int     `json:"judge_executions"`
	WallSeconds     float64 `json:"wall_seconds"`
	// Killed pools the mutants killed by each suite over the tasks measured
	// (Row.Mutation): the run's tests, all proposed tests, the hidden tests.
	Killed KilledTotals `json:"killed"`
	// Intervals are 95 % bootstrap intervals over tasks (bootstrap); nil with fewer than
	// two tasks.
	Intervals Intervals `json:"intervals"`
}

// KilledTotals are pooled mutants killed, per suite.
type KilledTotals struct {
	Tests    Score `json:"tests"`
	Proposed Score `json:"proposed"`
	Hidden   Score `json:"hidden"`
}

// Intervals are a protocol's 95 % bootstrap intervals over tasks.
type Intervals struct {
	Solved       *Interval `json:"solved"`
	Hidden       *Interval `json:"hidden"`
	Precision    *Interval `json:"precision"`
	KilledTests  *Interval `json:"killed_tests"`
	KilledHidden *Interval `json:"killed_hidden"`
}

// totals sums the rows per protocol, in the order of protocols.
func totals(protocols []string, rows []Row) []Total {
	var out []Total
	for _, p := range protocols {
		t := Total{Protocol: p}
		var solved, hidden, precision, killedTests, killedHidden []Score
		for _, r := range rows {
			if r.Protocol != p {
				continue
			}
			t.Tasks++
			s := Score{Total: 1}
			if r.Solved {
				t.Solved++
				s.Passed = 1
			}
			solved, hidden, precision = append(solved, s), append(hidden, r.Hidden), append(precision, r.Precision)
			if m := r.Mutation; m != nil {
				t.Killed.Tests.add(killed(m.Tests))
				t.Killed.Proposed.add(killed(m.Proposed))
				t.Killed.Hidden.add(killed(m.Hidden))
				killedTests, killedHidden = append(killedTests, killed(m.Tests)), append(killedHidden, killed(m.Hidden))
			}
			t.Hidden.add(r.Hidden)
			t.Precision.add(r.Precision)
			t.LLMCalls += r.LLMCalls
			t.Tokens += r.PromptTokens + r.CompletionTokens
			t.CostUSD += r.CostUSD
			t.JudgeExecutions += r.JudgeExecutions
			t.WallSeconds += r.WallSeconds
		}
		t.Intervals = Intervals{Solved: bootstrap(solved), Hidden: bootstrap(hidden), Precision: bootstrap(precision),
			KilledTests: bootstrap(killedTests), KilledHidden: bootstrap(killedHidden)}
		if t.Tasks > 0 {
			out = append(out, t)
		}
	}
	return out
}

// ReadJSON reads eval.json strictly: unknown fields and another schema are errors.
func ReadJSON(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("read %s: schema %d, this build reads %d", path, r.Schema, Schema)
	}
	return &r, nil
}
