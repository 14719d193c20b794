package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/pick"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// Choose picks the implementation the pull request is built from with the rule the run's
// settings name (internal/pick; the default when none or an unknown one) and says why in
// words. The rule sees the run as pickInput gathers it.
func Choose(s runfile.Summary, c runfile.Comparison) runfile.Pick {
	rule, ok := pick.Named(c.PickRule)
	if !ok {
		rule, _ = pick.Named(pick.Default)
	}
	ch := pick.Choose(rule, pickInput(s, c))
	return runfile.Pick{Coder: ch.Coder, Agreed: ch.Agreed, Candidates: ch.Candidates, Why: pickWhy(ch, s, c)}
}

// pickInput is what the pick sees of a run: each coder, in the configured order, with
// whether it passes the whole vetted suite and breaks none of the repository's own tests
// (Consensus), its scores and the size of its change.
func pickInput(s runfile.Summary, c runfile.Comparison) pick.Input {
	in := pick.Input{Protocol: s.Protocol, Final: s.Final, Accepted: s.Accepted, Vetted: len(s.Vetted),
		DualTests: c.DualTests, Counted: c.Proposed != nil, Probed: c.Differential != nil, Sized: len(c.Touched) > 0}
	passes := map[string]bool{}
	for _, name := range Consensus(s) {
		passes[name] = true
	}
	lastSuite := map[string]int{}
	for _, ev := range s.Events {
		if ev.Kind == orchestrate.EvSuite {
			lastSuite[ev.Agent] = ev.Passed
		}
	}
	touched := map[string]runfile.CoderDiff{}
	for _, t := range c.Touched {
		touched[t.Coder] = t
	}
	for _, coder := range s.Coders {
		if coder.Tampered != nil {
			continue // out of the pick, whatever the rule (tampered.go)
		}
		name, t := coder.Name, touched[coder.Name]
		pc := pick.Coder{Name: name, Passes: passes[name], Dual: c.Dual[name], Proposed: c.Proposed[name], Lines: t.Added + t.Deleted, OwnTests: t.OwnTests,
			SuitePassed: lastSuite[name]}
		if c.Differential != nil && pc.Passes {
			pc.Agreement = c.Differential.Agreement(name)
		}
		in.Coders = append(in.Coders, pc)
	}
	return in
}

// pickWhy says in words how the rule came to its choice, one sentence a reason.
func pickWhy(ch pick.Choice, s runfile.Summary, c runfile.Comparison) string {
	own := ""
	for _, t := range c.Touched {
		if t.OwnTests > 0 {
			own = ", not counting the coders' own tests"
		}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	for _, r := range ch.Reasons {
		tied := strings.Join(r.Coders, ", ")
		switch r.Step {
		case pick.StepProtocol:
			p("The %s protocol accepted %s's work.", s.Protocol, ch.Coder)
		case pick.StepProtocolNone:
			if ch.Coder == "" { // the rule saw no coder: every one tampered (tampered.go)
				p("The %s protocol accepted no work, and no coder's is left to pick: every one tampered with the test runner.", s.Protocol)
				break
			}
			p("The %s protocol accepted no work; this is %s's last.", s.Protocol, ch.Coder)
		case pick.StepAccepted:
			b.WriteString(acceptedWhy(s))
		case pick.StepNoVetted:
			p("No test was vetted, so no test backs this pick among the %d coders. ", len(ch.Candidates))
		case pick.StepOnly:
			p("%s is the only implementation that passes every vetted test.", ch.Coder)
		case pick.StepCandidates:
			p("%s passes every vetted test, as do %d others. ", ch.Coder, r.Score)
		case pick.StepUnchanged:
			p("%s changed nothing from the base revision, so the suite does not tell it from the base: left out. ", tied)
		case pick.StepProposed:
			if r.Decided {
				p("Of these, it passes the most of the %d tests the testers proposed, vetted or not (%d).", c.DualTests, r.Score)
			} else {
				p("Of the %d proposed tests, %s pass the most (%d each). ", c.DualTests, tied, r.Score)
			}
		case pick.StepDual:
			if r.Decided {
				p("Over all %d tests the testers proposed, its dual-agreement score is the highest (%d: tests passed × implementations passing exactly the same ones).", c.DualTests, r.Score)
			} else {
				p("Over all %d proposed tests, %s share the highest dual-agreement score (%d). ", c.DualTests, tied, r.Score)
			}
		case pick.StepProbe:
			if r.Decided {
				p("Of these, its answers to the probe's inputs agree with the others' most often (%d shared answers).", r.Score)
			} else {
				p("On the probe's inputs, %s agree with the others most often (%d shared answers each). ", tied, r.Score)
			}
		case pick.StepSize:
			switch {
			case r.Decided:
				p("Of these, %s's change from the base revision is the smallest (%d lines%s).", ch.Coder, r.Score, own)
			case r.Narrowed:
				p("Of these, %s change the fewest lines (%d each%s). ", tied, r.Score, own)
			default:
				p("Their changes are the same size (%d lines each%s). ", r.Score, own)
			}
		case pick.StepOrder:
			p("Nothing else tells them apart, so the first in the configured order is shown.")
		case pick.StepNoneProposed:
			p("No implementation passes every vetted test; %s passes the most of the %d proposed tests (%d).", ch.Coder, c.DualTests, r.Score)
		case pick.StepNoneDual:
			p("No implementation passes every vetted test; %s has the highest dual-agreement score over the %d proposed tests (%d), CodeT's pick.", ch.Coder, c.DualTests, r.Score)
		case pick.StepNoneSuite:
			p("No implementation passes every vetted test; %s passed the most (%d of %d) in its last run of the suite.", ch.Coder, r.Score, len(s.Vetted))
		}
	}
	return b.String()
}

// acceptedWhy names the human who accepted the pick, and their reason.
func acceptedWhy(s runfile.Summary) string {
	why := fmt.Sprintf("%s's implementation was accepted by a human", s.Accepted)
	for _, d := range s.Decisions {
		if d.Verb == orchestrate.DecideAccept && d.Refused == "" {
			why = fmt.Sprintf("%s's implementation was accepted by @%s", s.Accepted, d.By)
			if d.Reason != "" {
				why += ": " + d.Reason
			}
		}
	}
	return why + "."
}
