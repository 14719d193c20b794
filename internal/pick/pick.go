// Package pick chooses the implementation an escalation pull request is built from. A rule
// is a pure function: what the run measured of each coder goes in (Input), a ranked choice
// with its reasons as data comes out (Choice); internal/report puts the reasons into words.
package pick

import "slices"

// Input is what a rule sees of a run. The measures are taken upstream: the dual-agreement
// scores by the session (differential.DualAgreement over every proposed test), the
// probe's agreement by differential testing, the sizes from the workshop's diff stats.
type Input struct {
	// Protocol is the run's protocol: "" or "dixit" picks by the rule; another protocol
	// chose for itself (Final).
	Protocol string
	Final    string // the coder another protocol accepted, if any
	Accepted string // the coder a human accepted, if any: the rule gives way
	Vetted   int    // how many tests the vetted suite holds
	Coders   []Coder
	// DualTests is how many proposed tests the dual-agreement scores are over; 0 when
	// they were not measured.
	DualTests int
	// Counted: Coder.Proposed was measured (a run from before it was has no counts).
	Counted bool
	Probed  bool // the probe's answers were compared: Agreement is measured
	Sized   bool // the changes from the base revision were measured: Lines is known
}

// Coder is one coder's measures, in the configured order of Input.Coders.
type Coder struct {
	Name string
	// Passes: it passes the whole vetted suite at the end of the run and breaks none of
	// the repository's own tests. Only such coders are candidates.
	Passes bool
	Dual   int // CodeT's dual-agreement score over the proposed tests
	// Proposed is how many of the proposed tests (DualTests of them) it passes.
	Proposed int
	// Agreement is how many of its answers to the probe's inputs the other candidates
	// share (measured for candidates only).
	Agreement int
	Lines     int // lines added plus deleted from the base revision, its own tests included
	OwnTests  int // of Lines, those in its own test files, which the size tie-break leaves out
	// SuitePassed is how many vetted tests it passed in its last run of the suite.
	SuitePassed int
}

// size is the change the size tie-break counts: the coder's own tests do not count, so a
// coder that writes tests is not the one that loses it.
func (c Coder) size() int { return c.Lines - c.OwnTests }

// Choice is a rule's answer.
type Choice struct {
	Coder string
	// Agreed: the pick passes every vetted test, and some test was vetted.
	Agreed bool
	// Candidates are the coders that pass the whole vetted suite, in the configured order.
	Candidates []string
	// Ranked are the coders the rule ranked, best first: the candidates still in the
	// running, or every coder when there is no candidate.
	Ranked []string
	// Reasons say, step by step, how the rule came to Coder.
	Reasons []Reason
}

// Step is what a reason is about.
type Step string

// The steps of the rules, in the order they can appear.
const (
	StepProtocol     Step = "protocol"      // another protocol accepted Coder's work
	StepProtocolNone Step = "protocol_none" // another protocol accepted no work: the first coder's last
	StepAccepted     Step = "accepted"      // a human accepted Coder
	StepNoVetted     Step = "no_vetted"     // no test was vetted: no test backs the pick
	StepOnly         Step = "only"          // Coder is the only candidate
	StepCandidates   Step = "candidates"    // Coder is one of several candidates (Score: how many others)
	StepUnchanged    Step = "unchanged"     // Coders changed nothing from the base and are left out
	StepProposed     Step = "proposed"      // the most proposed tests passed (Score)
	StepDual         Step = "dual"          // the highest dual-agreement score (Score)
	StepProbe        Step = "probe"         // the most answers to the probe's inputs shared (Score)
	StepSize         Step = "size"          // the smallest change from the base (Score: lines)
	StepOrder        Step = "order"         // nothing else tells Coders apart: the configured order
	StepNoneProposed Step = "none_proposed" // no candidate: the most proposed tests passed (Score)
	StepNoneDual     Step = "none_dual"     // no candidate: the highest dual-agreement score (Score), CodeT's pick
	StepNoneSuite    Step = "none_suite"    // no candidate, no dual score: the most vetted tests passed (Score)
)

// Reason is one step of a rule.
type Reason struct {
	Step Step
	// Coders are, for a ranking step, the coders still tied with the pick after it; for
	// StepUnchanged, the coders left out.
	Coders []string
	Score  int // the pick's score at this step
	// Decided: this step alone set the pick apart from the others.
	Decided bool
	// Narrowed (StepSize): fewer coders were tied after the step than before it.
	Narrowed bool
}

// Rule ranks a run's coders and picks one. It is called only when the Dixit protocol ran
// and no human accepted a coder (Choose handles those).
type Rule func(Input) Choice

// Default is the rule runs use. On real sympy patches and recorded HumanEval panels no
// other rule measured picks a resolving coder more often (docs/real-patches.md).
const Default = RuleHybrid

// Named returns the rule a setting names ("" is Default), and whether there is one.
func Named(name string) (Rule, bool) {
	switch name {
	case "", RuleHybrid:
		return Hybrid, true
	case RuleMostTests:
		return MostTests, true
	}
	return nil, false
}

// Names lists the rules a setting may name.
func Names() []string { return []string{RuleHybrid, RuleMostTests} }

// Choose picks with rule, after what comes before any rule: another protocol's own
// choice, then a human's accept. When no test was vetted, the choice says so and is not
// agreed: every coder passes an empty suite.
func Choose(rule Rule, in Input) Choice {
	if in.Protocol != "" && in.Protocol != "dixit" {
		return protocolChoice(in)
	}
	candidates := Candidates(in)
	if in.Accepted != "" {
		return Choice{Coder: in.Accepted, Agreed: slices.Contains(candidates, in.Accepted), Candidates: candidates,
			Ranked: []string{in.Accepted}, Reasons: []Reason{{Step: StepAccepted}}}
	}
	ch := rule(in)
	if in.Vetted == 0 && ch.Coder != "" {
		ch.Agreed = false
		reasons := []Reason{{Step: StepNoVetted}}
		for _, r := range ch.Reasons {
			if r.Step != StepCandidates { // "as do the others": no test backs that
				reasons = append(reasons, r)
			}
		}
		ch.Reasons = reasons
	}
	return ch
}

// Candidates are the coders that pass the whole vetted suite, in the configured order.
func Candidates(in Input) []string {
	var out []string
	for _, c := range in.Coders {
		if c.Passes {
			out = append(out, c.Name)
		}
	}
	return out
}

// protocolChoice is the other protocols' own choice: the coder they accepted, else the
// first coder's last work.
func protocolChoice(in Input) Choice {
	if in.Final != "" {
		return Choice{Coder: in.Final, Agreed: true, Candidates: []string{in.Final}, Ranked: []string{in.Final},
			Reasons: []Reason{{Step: StepProtocol}}}
	}
	first := ""
	if len(in.Coders) > 0 {
		first = in.Coders[0].Name
	}
	return Choice{Coder: first, Candidates: []string{}, Ranked: []string{first}, Reasons: []Reason{{Step: StepProtocolNone}}}
}
