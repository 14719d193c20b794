package orchestrate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/fence"
	"github.com/dixit-bot/dixit/internal/words"
)

// tdg follows seed 002, test-driven generation: a navigator analyses the spec and the
// human-written tests; test designers add tests; every coder, as a programmer sample,
// implements the spec seeing the analysis and all the tests; a candidate scores when it
// passes every test (no user metrics: the sum of metrics is 1). The first scoring
// candidate, in coder order, is accepted; if none scores, the navigator analyses the
// failures and the programmers try again, up to max_iterations.
func (r *Run) tdg(ctx context.Context) (*Result, error) {
	nav := r.advisors[0]
	analysis, err := r.answer(ctx, nav, navigatorRequest(r.human))
	if err != nil {
		return nil, err
	}
	tests := append([]Candidate(nil), r.human...)
	for _, t := range r.testers {
		c, ok, err := r.propose(ctx, t, designRequest(analysis, r.human))
		if err != nil {
			return nil, err
		}
		if ok {
			tests = append(tests, c)
			r.proposals = append(r.proposals, c)
		}
	}
	if len(tests) == 0 {
		return r.escalate(ctx, IterationCap, "no test to condition on: no human test and no designed test")
	}
	message := programRequest(analysis, tests)
	for {
		r.round++
		r.emit(ctx, Event{Kind: EvRound})
		for _, coder := range r.coders {
			if err := r.solve(ctx, coder, message); err != nil {
				return nil, err
			}
		}
		scores, failures, err := r.scoreCandidates(ctx, tests)
		if err != nil {
			return nil, err
		}
		if reason, out := r.allTampered(); out {
			return r.escalate(ctx, CodersTampered, reason)
		}
		summary := r.scoreSummary(scores, len(tests))
		for i, coder := range r.coders {
			if scores[i] {
				return r.accept(ctx, coder, fmt.Sprintf("%s's candidate is accepted: %s, iteration %d", coder.Name(), summary, r.round))
			}
		}
		if r.round == r.cfg.MaxIterations {
			return r.escalate(ctx, IterationCap, fmt.Sprintf("no candidate passes every test after %d iterations (max_iterations); last: %s", r.round, summary))
		}
		analysis, err = r.answer(ctx, nav, failureAnalysisRequest(failures))
		if err != nil {
			return nil, err
		}
		message = retryRequest(analysis, failures)
	}
}

// candidateFailure is how one programmer's candidate failed, traceback included: the
// programmers and the navigator may see the tests and their output in this protocol, but
// for a tampered run's (seenByCoder).
type candidateFailure struct {
	Coder  string
	Passed int
	Failed []ownFailure
}

// scoreSummary says how many candidates score, pass@1 and pass@k; a coder that tampered
// with the test runner, in this iteration or an earlier one, never scores.
func (r *Run) scoreSummary(scores []bool, tests int) string {
	passing, refused := 0, 0
	for i, coder := range r.coders {
		switch {
		case r.tamperOf(coder.Name()) != nil:
			refused++
		case scores[i]:
			passing++
		}
	}
	k := len(r.coders)
	summary := fmt.Sprintf("%d of %d candidates pass all %d tests (pass@1 %.2f, pass@%d %d)", passing, k, tests,
		float64(passing)/float64(k), k, min(passing, 1))
	if refused > 0 {
		summary += fmt.Sprintf("; %s tampered with the test runner and cannot score", words.Count(refused, "candidate", "candidates"))
	}
	return summary
}

// scoreCandidates runs every test on every coder's candidate in one batch. It returns
// which candidates pass them all and may be accepted (none that ever tampered), and the
// failures of the best failing candidates that did not tamper.
func (r *Run) scoreCandidates(ctx context.Context, tests []Candidate) ([]bool, []candidateFailure, error) {
	var jobs []ci.Job
	for _, coder := range r.coders {
		tree, err := r.store.Tree(ctx, coder.commit)
		if err != nil {
			return nil, nil, fmt.Errorf("tree of coder %s: %w", coder.Name(), err)
		}
		for _, t := range tests {
			jobs = append(jobs, ci.Job{Coder: coder.Name(), Tree: tree, Test: t.Test()})
		}
	}
	verdicts, err := r.runJudge(ctx, "", jobs)
	if err != nil {
		return nil, nil, err
	}
	rows := make([][]Cell, len(r.coders))
	for i, coder := range r.coders {
		rows[i] = make([]Cell, len(tests))
		for j, t := range tests {
			rows[i][j] = newCell(coder.Name(), t.ID, verdicts[i*len(tests)+j])
		}
	}
	blamed := blamedColumns(rows, len(tests))
	for j, t := range tests {
		// People wrote the human tests, as the hidden ones: a tampered run of them is
		// the coder's doing, however many coders did it.
		blamed[j] = blamed[j] && t.Tester != ""
	}
	scores := make([]bool, len(r.coders))
	var failures []candidateFailure
	for i, coder := range r.coders {
		f := candidateFailure{Coder: coder.Name()}
		var tampered []Cell
		for j, t := range tests {
			v := verdicts[i*len(tests)+j]
			if v.Passed() {
				f.Passed++
				continue
			}
			seen := seenByCoder(v)
			switch {
			case v.Outcome != ci.Tampered:
			case blamed[j]:
				seen = tamperingTest // the test's doing: no coder is named for it
			default:
				tampered = append(tampered, rows[i][j])
			}
			f.Failed = append(f.Failed, ownFailure{Path: t.ID, Outcome: v.Outcome, Output: seen})
		}
		r.emit(ctx, Event{Kind: EvSuite, Agent: coder.Name(), Passed: f.Passed, Cells: rows[i],
			Detail: fmt.Sprintf("candidate passes %d of %d tests", f.Passed, len(tests))})
		r.noteTampered(ctx, coder.Name(), tampered)
		out := r.tamperOf(coder.Name()) != nil // its runs prove nothing, passes or failures
		scores[i] = len(f.Failed) == 0 && !out
		if !scores[i] && !out {
			failures = append(failures, f)
		}
	}
	// The seed analyses the top f ≤ k failing runs: those closest to passing.
	sort.SliceStable(failures, func(a, b int) bool { return failures[a].Passed > failures[b].Passed })
	return scores, failures[:min(len(failures), maxAnalysed)], nil
}

// maxAnalysed is how many failing candidates the navigator analyses per iteration.
const maxAnalysed = 3

func navigatorRequest(human []Candidate) string {
	var b strings.Builder
	b.WriteString("Please analyse the specification before anyone writes code: the inputs it allows, the outputs it " +
		"expects, the edge cases, and what a correct implementation must get right. Be concise and concrete.\n")
	writeTests(&b, "Tests people wrote for it", human)
	return b.String()
}

func designRequest(analysis string, human []Candidate) string {
	var b strings.Builder
	b.WriteString("Please write one test file that checks what this analysis of the specification says matters, " +
		"beyond what the existing tests check.\n\nAnalysis:\n" + analysis + "\n")
	writeTests(&b, "Existing tests", human)
	return b.String()
}

func programRequest(analysis string, tests []Candidate) string {
	var b strings.Builder
	b.WriteString("Please implement the specification. Your code must pass the tests below; they will be run.\n\nAn analysis of the specification:\n" + analysis + "\n")
	writeTests(&b, "The tests", tests)
	return b.String()
}

func failureAnalysisRequest(failures []candidateFailure) string {
	var b strings.Builder
	b.WriteString("No implementation passes every test yet. Please analyse these failures: what do the implementations " +
		"misunderstand, and what must change? Be concise and concrete.\n")
	writeFailures(&b, failures)
	return b.String()
}

func retryRequest(analysis string, failures []candidateFailure) string {
	var b strings.Builder
	b.WriteString("The tests were run and some failed. An analysis of the failures:\n" + analysis + "\n")
	writeFailures(&b, failures)
	b.WriteString("\nPlease correct your implementation so that it passes every test.")
	return b.String()
}

func writeTests(b *strings.Builder, title string, tests []Candidate) {
	if len(tests) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, t := range tests {
		text := strings.TrimRight(strings.ToValidUTF8(string(t.Content), "\uFFFD"), "\n")
		f := fence.For(text)
		fmt.Fprintf(b, "\n%s:\n%s\n%s\n%s\n", t.ID, f, text, f)
	}
}

func writeFailures(b *strings.Builder, failures []candidateFailure) {
	for _, f := range failures {
		fmt.Fprintf(b, "\nAn implementation passing %d tests fails:\n", f.Passed)
		for _, o := range f.Failed {
			fmt.Fprintf(b, "- %s (%s): %s\n", o.Path, strings.ReplaceAll(string(o.Outcome), "_", " "), clipText(strings.TrimSpace(o.Output), 2000))
		}
	}
}
