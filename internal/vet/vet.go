// Package vet judges a patch under review, such as an agent's pull request, against what
// a Dixit run built from the same spec. The patch is an observed implementation: it is
// judged on every test the testers proposed, vetted or not, with the same reruns and
// sandbox as the coders, but it never votes, so it cannot change what was vetted, and no
// agent ever sees it (the run is over before the patch is judged).
package vet

import (
	"context"
	"fmt"
	"slices"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/mutation"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/words"
)

// Conclusions, as GitHub's check runs name them.
const (
	Success = orchestrate.VetSuccess // passes every vetted test, and the run's outcome vouches for the suite
	Failure = "failure"              // fails at least one vetted test
	Neutral = orchestrate.VetNeutral // passes every vetted test, but the suite may not be complete
)

// Finding is how the patch did on one test.
type Finding struct {
	ID      string `json:"id"`
	Number  int    `json:"number,omitempty"` // place in the vetted suite; 0 for a test that was not vetted
	Tester  string `json:"tester"`
	Content []byte `json:"-"`
	// Patch is the patch's verdict; PassedBy the independent implementations that pass
	// the test, of Implementations.
	Patch           ci.Verdict `json:"patch"`
	PassedBy        []string   `json:"passed_by"`
	Implementations int        `json:"implementations"`
	// Gated: a test that was not vetted but is in the gate all the same (Gate.Share).
	Gated bool `json:"gated,omitempty"`
}

// Gate says which tests the patch must pass. The vetted suite always; with Share above 0
// also every other proposed test that at least that share of the final implementations
// pass, unanimous ones included. On recorded HumanEval and sympy panels that gate catches
// more wrong patches than the vetted suite alone for as few right ones failed
// (docs/real-patches.md): the tests every coder passes are the ones the Dixit rule drops,
// and they still tell a wrong patch from the coders' common answer.
type Gate struct {
	Share float64
}

// in says whether a proposed test that was not vetted joins the gate.
func (g Gate) in(f Finding) bool {
	return g.Share > 0 && f.Implementations > 0 && float64(len(f.PassedBy)) >= g.Share*float64(f.Implementations)-1e-9
}

// Judging is how the patch is judged: the judge and reruns the coders had, and the gate.
type Judging struct {
	Judge  ci.Judge
	Reruns int
	Gate   Gate
}

// Verdict is the patch's verdict on a run's tests.
type Verdict struct {
	Conclusion string    `json:"conclusion"`
	Why        string    `json:"why"`     // one line, for the review and the check run
	Vetted     []Finding `json:"vetted"`  // the vetted suite, in its order
	Others     []Finding `json:"others"`  // proposals that were not vetted (too weak or too hard)
	Passes     int       `json:"passes"`  // vetted tests the patch passes
	Outcome    string    `json:"outcome"` // how the run ended
	// GateShare is Gate.Share: 0 when the gate is the vetted suite alone.
	GateShare float64 `json:"gate_share,omitempty"`
	// Differences are the probe's inputs on which the patch answers otherwise than the
	// consensus implementations; ProbeNote says why there are none to show, if so.
	Differences []Difference `json:"differences,omitempty"`
	ProbeNote   string       `json:"probe_note,omitempty"`
	// Mutants is how many of the patch's mutants the vetted suite kills (ScoreMutants);
	// nil when they were not measured.
	Mutants *mutation.Score `json:"mutants,omitempty"`
}

// Judge runs the patch and every independent implementation (a coder's final tree) on every test the run's
// testers proposed. The implementations' verdicts are mostly in the judge's cache
// already; they are asked for again so that each test says how many of the final
// implementations pass it.
func Judge(ctx context.Context, j Judging, patch ci.Tree, impls []differential.Implementation, res *orchestrate.Result) (Verdict, error) {
	vetted := map[string]orchestrate.Vetted{}
	for _, v := range res.Vetted {
		vetted[v.ID] = v
	}
	tests := slices.Clone(res.Proposals)
	for _, v := range res.Vetted { // a run may carry vetted tests it did not propose (human tests)
		if !slices.ContainsFunc(tests, func(c orchestrate.Candidate) bool { return c.ID == v.ID }) {
			tests = append(tests, v.Candidate)
		}
	}
	var jobs []ci.Job
	for _, impl := range append([]differential.Implementation{{Coder: PatchName, Tree: patch}}, impls...) {
		for _, t := range tests {
			jobs = append(jobs, ci.Job{Coder: impl.Coder, Tree: impl.Tree, Test: t.Test()})
		}
	}
	verdicts, err := j.Judge.Run(ctx, j.Reruns, jobs)
	if err != nil {
		return Verdict{}, fmt.Errorf("judge the patch: %w", err)
	}
	if len(verdicts) != len(jobs) {
		return Verdict{}, fmt.Errorf("judge the patch: %d verdicts for %d jobs", len(verdicts), len(jobs))
	}
	out := Verdict{GateShare: j.Gate.Share}
	for i, t := range tests {
		f := Finding{ID: t.ID, Tester: t.Tester, Content: t.Content, Patch: verdicts[i], Implementations: len(impls)}
		for k, impl := range impls {
			if verdicts[(k+1)*len(tests)+i].Passed() {
				f.PassedBy = append(f.PassedBy, impl.Coder)
			}
		}
		if v, ok := vetted[t.ID]; ok {
			f.Number = v.Number
			out.Vetted = append(out.Vetted, f)
		} else {
			f.Gated = j.Gate.in(f)
			out.Others = append(out.Others, f)
		}
	}
	slices.SortFunc(out.Vetted, func(a, b Finding) int { return a.Number - b.Number })
	Conclude(&out, res.Outcome)
	return out, nil
}

// Conclude sets the conclusion and its one-line reason from the findings and how the run
// ended: failure if the patch fails a test of the gate (a vetted test first); if it passes
// them all, what the table of outcomes allows for that outcome (success only when the
// testers found nothing more that most implementations agree on); neutral when the gate
// holds no test.
func Conclude(v *Verdict, outcome orchestrate.Outcome) {
	v.Outcome, v.Passes = string(outcome), 0
	var failed []Finding
	for _, f := range v.Vetted {
		if f.Patch.Passed() {
			v.Passes++
		} else {
			failed = append(failed, f)
		}
	}
	extra := 0
	for _, f := range v.Others {
		if f.Gated {
			extra++
			if !f.Patch.Passed() {
				failed = append(failed, f)
			}
		}
	}
	n := len(v.Vetted)
	switch {
	case len(failed) > 0:
		v.Conclusion = Failure
		v.Why = failedWhy(failed, n, extra, v.GateShare)
	case n+extra == 0:
		v.Conclusion = Neutral
		v.Why = fmt.Sprintf("No test was vetted (the run ended %s): there is nothing independent to check the patch against.", outcome)
	case orchestrate.ReasonFor(outcome).Vet == Success:
		v.Conclusion = Success
		v.Why = fmt.Sprintf("The patch passes %s, and the testers found nothing more that most independent implementations agree on.", passedWhat(n, extra, v.GateShare))
	default:
		v.Conclusion = Neutral
		v.Why = fmt.Sprintf("The patch passes %s, but the run ended %s, so the suite may not be complete.", passedWhat(n, extra, v.GateShare), outcome)
	}
}

// passedWhat names the gate the patch passed: "all 3 vetted tests", and the other tests
// that joined it.
func passedWhat(vetted, extra int, share float64) string {
	var parts []string
	switch vetted {
	case 0:
	case 1:
		parts = append(parts, "the 1 vetted test")
	default:
		parts = append(parts, fmt.Sprintf("all %d vetted tests", vetted))
	}
	if extra > 0 {
		parts = append(parts, fmt.Sprintf("the %s that at least %s of the independent implementations pass",
			words.Count(extra, "other proposed test", "other proposed tests"), percent(share)))
	}
	return words.List(parts...)
}

// failedWhy says how many tests of the gate the patch fails and which is the first.
func failedWhy(failed []Finding, vetted, extra int, share float64) string {
	first := failed[0]
	of := words.Count(vetted, "vetted test", "vetted tests")
	if extra > 0 {
		of = fmt.Sprintf("%d tests (%d vetted, %d more that at least %s of the independent implementations pass)", vetted+extra, vetted, extra, percent(share))
	}
	which := fmt.Sprintf("test %d", first.Number)
	if first.Number == 0 {
		which = "the proposed test " + first.ID
	}
	return fmt.Sprintf("The patch fails %d of %s; %s, which %d of %d independent implementations pass, is the first (%s).",
		len(failed), of, which, len(first.PassedBy), first.Implementations, first.Patch.Outcome)
}

func percent(share float64) string { return fmt.Sprintf("%.0f %%", 100*share) }
