package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/session"
)

// measurement is what measure needs besides the run: the task's hidden tests and
// reference, the population's settings, and a judge for its contract.
type measurement struct {
	hidden    []orchestrate.Candidate
	reference ci.Tree
	settings  config.Settings
	judge     ci.Judge
	mutants   int // at most this many mutants; negative: none
}

// measure judges a finished run on what no agent saw: its final implementation on the
// hidden tests, and its tests on the reference solution.
func measure(ctx context.Context, out *session.Outcome, m measurement) (Row, error) {
	res, sum := out.Result, out.Summary
	row := Row{
		Protocol: res.Protocol, Run: sum.Run, Outcome: string(res.Outcome), Reason: res.Reason,
		PromptTokens: sum.Spend.PromptTokens, CompletionTokens: sum.Spend.CompletionTokens, CostUSD: sum.Spend.CostUSD,
		JudgeExecutions: sum.Judge.Executions, JudgeRuns: sum.Judge.Runs, CacheHits: sum.Judge.CacheHits,
		WallSeconds: sum.WallSeconds, Resumed: res.Live == 0 && res.Replayed > 0, Report: out.Report,
	}
	ws, err := gitstate.Open(filepath.Join(out.RunDir, "workshop.git"))
	if err != nil {
		return row, err
	}
	if row.LLMCalls, err = agentCalls(ws, sum.Run); err != nil {
		return row, err
	}
	final, commit := finalCoder(out)
	if commit == "" {
		return row, fmt.Errorf("run %s: no implementation to measure", sum.Run)
	}
	row.Final = final
	tree, err := ws.Source(commit)
	if err != nil {
		return row, fmt.Errorf("run %s: tree of %s: %w", sum.Run, final, err)
	}
	tests, kind, err := runTests(res, ws, commit, m.settings.Test)
	if err != nil {
		return row, fmt.Errorf("run %s: %w", sum.Run, err)
	}
	row.TestsKind = kind
	var jobs []ci.Job
	for _, h := range m.hidden {
		jobs = append(jobs, ci.Job{Coder: final, Tree: tree, Test: ci.Test{ID: h.ID, Content: h.Content}})
	}
	for _, t := range tests {
		jobs = append(jobs, ci.Job{Coder: "reference", Tree: m.reference, Test: ci.Test{ID: t.ID, Content: t.Content}})
	}
	verdicts, err := m.judge.Run(ctx, m.settings.Reruns, jobs)
	if err != nil {
		return row, fmt.Errorf("run %s: measure on the hidden tests and the reference: %w", sum.Run, err)
	}
	for i, v := range verdicts {
		score := &row.Hidden
		if i >= len(m.hidden) {
			score = &row.Precision
		}
		score.Total++
		if v.Passed() {
			score.Passed++
		} else {
			score.Failed = append(score.Failed, jobs[i].Test.ID)
		}
	}
	row.Solved = row.Hidden.Total > 0 && row.Hidden.Passed == row.Hidden.Total
	if m.mutants < 0 {
		return row, nil
	}
	files, err := ws.Files(commit)
	if err != nil {
		return row, fmt.Errorf("run %s: files of %s: %w", sum.Run, final, err)
	}
	proposed := tests
	if len(res.Proposals) > 0 {
		proposed = res.Proposals
	}
	if row.Mutation, err = mutants(ctx, m, files, tests, proposed); err != nil {
		return row, fmt.Errorf("run %s: %w", sum.Run, err)
	}
	return row, nil
}

// finalCoder is the implementation a protocol ends with: dixit's pick (the escalation
// PR's), the accepted coder of another protocol, else its first coder, which is what a
// person would look at first.
func finalCoder(out *session.Outcome) (name, commit string) {
	res := out.Result
	switch {
	case res.Protocol == config.ProtocolDixit && out.Summary.Comparison != nil && out.Summary.Comparison.Pick.Coder != "":
		name = out.Summary.Comparison.Pick.Coder
	case res.Final != "":
		name = res.Final
	case len(res.Coders) > 0:
		name = res.Coders[0].Name
	}
	for _, c := range res.Coders {
		if c.Name == name {
			return name, c.Commit
		}
	}
	return name, ""
}

// runTests are the tests a run produced that the evaluation checks on the reference:
// dixit's vetted suite, tdg's designed tests, and otherwise the final coder's own test
// files, each on its own as the protocols run them.
func runTests(res *orchestrate.Result, ws *gitstate.Workshop, commit string, contract ci.Contract) ([]orchestrate.Candidate, string, error) {
	switch res.Protocol {
	case config.ProtocolDixit:
		out := make([]orchestrate.Candidate, len(res.Vetted))
		for i, v := range res.Vetted {
			out[i] = v.Candidate
		}
		return out, "vetted", nil
	case config.ProtocolTDG:
		return res.Proposals, "designed", nil
	}
	files, err := ws.Files(commit)
	if err != nil {
		return nil, "", fmt.Errorf("files of the final implementation: %w", err)
	}
	var out []orchestrate.Candidate
	for _, f := range files {
		if contract.Private(f.Path) {
			out = append(out, orchestrate.Candidate{ID: ownID(f.Path), Tester: "own", Content: f.Content})
		}
	}
	return out, "own", nil
}

// ownID names a coder's own test file for the judge, which puts the id into a file name.
func ownID(file string) string {
	stem := strings.TrimSuffix(file, path.Ext(file))
	return "own_" + strings.Trim(unsafeInID.ReplaceAllString(strings.ToLower(stem), "_"), "_")
}

// agentCalls counts the run's journalled agent answers: with live agents, each is a
// model conversation turn that was paid for.
func agentCalls(ws *gitstate.Workshop, run string) (int, error) {
	j, err := ws.Journal("refs/dixit/" + run + "/journal")
	if err != nil {
		return 0, err
	}
	entries, err := j.Entries()
	if err != nil {
		return 0, fmt.Errorf("run %s: read the journal: %w", run, err)
	}
	n := 0
	for i, e := range entries {
		var rec struct {
			Effect string `json:"effect"`
		}
		if err := json.Unmarshal(e, &rec); err != nil {
			return 0, fmt.Errorf("run %s: journal entry %d: %w", run, i+1, err)
		}
		switch rec.Effect {
		case "solve", "propose", "answer":
			n++
		}
	}
	return n, nil
}
