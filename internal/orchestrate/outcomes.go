package orchestrate

// The table of outcomes: why a run stops, each reason declared once with what a human
// reads about it, the evidence the report shows, the decisions that answer it, whether
// its pull request closes the issue and what a vetted patch can conclude. The protocol
// raises the reasons; the report, the vet verdict and the App read this table. To add a
// reason: a constant and a row here, and the code that raises it.

import (
	"fmt"
	"slices"
	"strings"
)

// Outcome is why a run stopped and handed over to a human.
type Outcome string

const (
	TestersExhausted     Outcome = "TESTERS_EXHAUSTED"
	AllTestersHibernated Outcome = "ALL_TESTERS_HIBERNATED"
	CodersStuck          Outcome = "CODERS_STUCK"
	BudgetExhausted      Outcome = "BUDGET_EXHAUSTED"
	// Environment: the judge cannot build or run the base revision with a trivial test,
	// so no verdict could say anything about the coders (docs/protocol.md, Preflight).
	Environment Outcome = "ENVIRONMENT"

	// The other protocols end when their own acceptance is reached, or at their cap.
	Accepted     Outcome = "ACCEPTED"      // single, critics: the coder's own tests pass (and the critics approve)
	IterationCap Outcome = "ITERATION_CAP" // max_iterations reached first
	// CodersTampered: every coder such a protocol could accept tampered with the test
	// runner, so none can be (tamper.go); more iterations would only pay for more of it.
	CodersTampered Outcome = "CODERS_TAMPERED"
)

// EvidenceKind is what the report shows to back a reason (report/evidence.go).
type EvidenceKind string

const (
	EvidenceStuckCoder   EvidenceKind = "stuck_coder"   // the stuck coder's verdict vectors, attempt by attempt
	EvidenceStackedTests EvidenceKind = "stacked_tests" // each sleeping tester's too-hard tests
	EvidenceLastRounds   EvidenceKind = "last_rounds"   // the last rounds' proposals by class
	EvidenceWhatRanOut   EvidenceKind = "what_ran_out"  // the budget crossed, and the spend
	EvidencePreflight    EvidenceKind = "preflight"     // the judge's output on the base revision
	EvidenceOwnChecks    EvidenceKind = "own_checks"    // the coder's own tests and the critics' last reviews
)

// Vet conclusions a reason allows a patch that passes every vetted test (vet.Conclude).
const (
	VetSuccess = "success"
	VetNeutral = "neutral"
)

// Reason is one row of the table of outcomes.
type Reason struct {
	Outcome Outcome
	// Title names the stop in a line: the check run's title when no count says more.
	Title string
	// Next says what the stop means and who acts; the report puts it after the reason.
	// NextNoTests replaces it when no test was vetted, NextMidRun when the judge broke
	// during the run; empty when Next fits those too.
	Next, NextNoTests, NextMidRun string
	Evidence                      EvidenceKind
	// Decisions are the verbs of the decisions that answer the stop, most natural first.
	// Fitting adds wake when a tester sleeps and accept last, whatever the reason.
	Decisions []string
	// ClosesIssue: the escalation pull request closes the issue (the implementations agree
	// on everything the testers could find); otherwise it only refers to it.
	ClosesIssue bool
	// Vet is the conclusion for a patch that passes every vetted test of such a run.
	Vet string
}

// reasons is the table. Keep it in the order a reader meets the stops.
var reasons = []Reason{
	{
		Outcome:     TestersExhausted,
		Title:       "the testers found nothing more that separates the coders",
		Next:        "The testers found nothing more that separates the coders: the implementations agree on every vetted test. A human should compare them and decide.",
		NextNoTests: "The testers found nothing more to propose, and no test was vetted: nothing backs or separates the implementations. A human should read the failing verdicts and decide.",
		Evidence:    EvidenceLastRounds,
		Decisions:   []string{DecideContinue, DecideDrop},
		ClosesIssue: true,
		Vet:         VetSuccess,
	},
	{
		Outcome:   AllTestersHibernated,
		Title:     "every tester's last tests were too hard for the coders",
		Next:      "Every tester's last tests were too hard for the coders: the spec may be ambiguous or the coders may share a blind spot.",
		Evidence:  EvidenceStackedTests,
		Decisions: []string{DecideWake, DecideContinue},
		Vet:       VetNeutral,
	},
	{
		Outcome:   CodersStuck,
		Title:     "a coder cannot pass a test most others pass",
		Next:      "A coder could not pass a test most others pass: either that coder is broken or the test is wrong. A human decides.",
		Evidence:  EvidenceStuckCoder,
		Decisions: []string{DecideDrop, DecideReplace, DecideContinue},
		Vet:       VetNeutral,
	},
	{
		Outcome:   BudgetExhausted,
		Title:     "a budget ran out",
		Next:      "A budget ran out before the protocol reached a verdict.",
		Evidence:  EvidenceWhatRanOut,
		Decisions: []string{DecideBudget, DecideContinue},
		Vet:       VetNeutral,
	},
	{
		Outcome:    Environment,
		Title:      "the judge cannot build or run the repository's tests",
		Next:       "No agent was called: the judge could not build the base revision or start its test runner, so every verdict would have failed for that reason alone. Fix what the reason names and run the same command again.",
		NextMidRun: "The judge's environment broke during the run: what it said about that test says nothing about the coders, so nothing was recorded for it. Fix what the reason names and run the same command again: the run resumes where it stopped.",
		Evidence:   EvidencePreflight,
		Decisions:  []string{DecideContinue},
		Vet:        VetNeutral,
	},
	{
		Outcome:   Accepted,
		Title:     "the protocol's own check passed",
		Next:      "The protocol's own check passed. Only tests the coder wrote itself checked this code: before trusting it, compare with a Dixit run.",
		Evidence:  EvidenceOwnChecks,
		Decisions: []string{DecideContinue},
		Vet:       VetNeutral,
	},
	{
		Outcome:   IterationCap,
		Title:     "max_iterations reached before the protocol's own check passed",
		Next:      "The loop reached max_iterations before its own check passed.",
		Evidence:  EvidenceOwnChecks,
		Decisions: []string{DecideContinue},
		Vet:       VetNeutral,
	},
	{
		Outcome: CodersTampered,
		Title:   "every coder tampered with the test runner",
		Next: "In a run of each coder's code the judge's own checks in the test's process did not come out as they must: " +
			"something in that code changes what the test runner reports, so no pass of it can be trusted and no work was accepted. " +
			"The Tampered section has the judge's evidence; a fresh run, or a Dixit run, should take the issue on.",
		Evidence:  EvidenceOwnChecks,
		Decisions: []string{DecideContinue},
		Vet:       VetNeutral,
	},
}

// Reasons lists every reason a run can stop for, a copy of the table.
func Reasons() []Reason { return slices.Clone(reasons) }

// ReasonFor looks up an outcome's row. An outcome the table does not know (an older
// summary, a typo in a test) reads like a budget stop: the conservative answer.
func ReasonFor(o Outcome) Reason {
	if i := slices.IndexFunc(reasons, func(r Reason) bool { return r.Outcome == o }); i >= 0 {
		return reasons[i]
	}
	r := reasons[slices.IndexFunc(reasons, func(r Reason) bool { return r.Outcome == BudgetExhausted })]
	r.Outcome = o
	return r
}

// DecisionVerbs describes each verb, in the order the commands are listed.
var DecisionVerbs = []struct{ Verb, Usage, Does string }{
	{DecideDrop, "drop <test> <reason>", "the test leaves the vetted suite; coders that failed only because of it go on"},
	{DecideReplace, "replace <coder>", "a fresh coder with the same settings and a new seed takes its place, and must pass the whole suite"},
	{DecideWake, "wake", "the sleeping testers are woken and propose again"},
	{DecideBudget, "budget <rounds|tokens|cost|wall_time> <amount>", "raise a budget, and go on"},
	{DecideContinue, "continue", "go on for up to max_rounds more rounds"},
	{DecideAccept, "accept <coder>", "end the run with that coder's implementation as the pick"},
}

// IsDecisionVerb tells the verbs of decisions from the bot's other commands.
func IsDecisionVerb(verb string) bool {
	return slices.ContainsFunc(DecisionVerbs, func(v struct{ Verb, Usage, Does string }) bool { return v.Verb == verb })
}

func usage(verb string) string {
	i := slices.IndexFunc(DecisionVerbs, func(v struct{ Verb, Usage, Does string }) bool { return v.Verb == verb })
	return DecisionVerbs[i].Usage
}

// Offer is a decision that fits where a run stopped: the command's usage, and the ids
// its argument may take ("coders: amber, basil"), if it takes one.
type Offer struct {
	Usage   string `json:"usage"`
	Choices string `json:"choices,omitempty"`
}

// Fitting lists the decisions that fit a run as it stands, most natural first: what the
// status comment and the PR offer. The stop's row orders them; each verb is offered
// where its command can be carried out.
func Fitting(s Standing) []Offer {
	if s.Outcome == "" || s.Accepted != "" || (s.Protocol != "" && s.Protocol != "dixit") {
		return nil
	}
	verbs := ReasonFor(s.Outcome).Decisions
	var out []Offer
	for _, verb := range verbs {
		if o, ok := offer(verb, s); ok {
			out = append(out, o)
		}
	}
	if len(s.Hibernated) > 0 && !slices.Contains(verbs, DecideWake) {
		out = append(out, Offer{Usage: usage(DecideWake), Choices: "asleep: " + strings.Join(s.Hibernated, ", ")})
	}
	accept, _ := offer(DecideAccept, s)
	return append(out, accept)
}

// offer is one verb's offer at a stop, and whether it fits there at all.
func offer(verb string, s Standing) (Offer, bool) {
	coders := "coders: " + strings.Join(s.Coders, ", ")
	switch verb {
	case DecideDrop:
		var tests []string
		for _, e := range s.Vetted {
			tests = append(tests, fmt.Sprintf("t%d (%s)", e.Number, e.ID))
		}
		return Offer{usage(verb), "tests: " + strings.Join(tests, ", ")}, len(tests) > 0
	case DecideReplace:
		return Offer{usage(verb), coders}, s.Replaceable
	case DecideAccept:
		return Offer{usage(verb), coders}, true
	case DecideBudget:
		if s.Crossed == "" {
			return Offer{Usage: usage(verb)}, true
		}
		return Offer{Usage: "budget " + s.Crossed + " <amount>"}, true
	case DecideContinue:
		// More rounds would cross any other budget again (Check says so too).
		return Offer{Usage: usage(verb)}, s.Outcome != BudgetExhausted || s.Crossed == "" || s.Crossed == BudgetRounds
	}
	return Offer{Usage: usage(verb)}, true
}
